import { expect, test } from "@playwright/test";
import { ADMIN, runningJob, signedInRequest, trpc } from "./admin-helpers";
import { ADA, shot, signIn } from "./learner-helpers";

test("[LEARNER] cancel a running job: its Runtime learns it on the next heartbeat, stops, and the job ends cancelled", async ({
  page,
}) => {
  // The job runs on a Runtime this test drives through the real protocol, so it is still running
  // when the learner clicks Cancel, however fast the reference Runtime would have been.
  const admin = await signedInRequest(ADMIN);
  const key = (
    await trpc<{ key: string }>(
      admin,
      "admin.runtimeKeys.create",
      { name: `e2e learner cancel ${Date.now()}` },
      "mutation",
    )
  ).data.key;
  await signIn(page, ADA);
  const { jobId, rt, lease } = await runningJob(page.request, key, `learner-cancel-${Date.now()}`);
  const row = page.locator(`[data-testid=job-row][data-job-id="${jobId}"]`);
  try {
    await page.goto("/");
    await expect(row).toHaveAttribute("data-status", "running");
    await row.getByRole("button", { name: /^Cancel / }).click();
    await expect(row.getByText("Stopping…")).toBeVisible();
    await shot(page, "cancel-requested");
  } finally {
    await lease.stop();
  }

  // The Runtime's next heartbeat says cancelRequested; it stops and acknowledges.
  const hb = await rt.heartbeat(jobId, 1);
  expect(hb.body.cancelRequested).toBe(true);
  expect((await rt.fail(jobId, 1, "CANCELLED", "stopped on request")).body.status).toBe("cancelled");
  await expect(row).toHaveAttribute("data-status", "cancelled");
  await shot(page, "cancelled");
});
