import { expect, test, type Page } from "@playwright/test";
import { ADMIN, keepLease, runningJob, signedInRequest, trpc } from "./admin-helpers";
import { ADA, shot, signIn } from "./learner-helpers";

/**
 * Live updates are down (the browser cannot open /api/jobs/events): the learner page says so and
 * polls instead, so a job's progress and its end still arrive. The job runs on a Runtime this
 * test drives through the real protocol, so each step it asserts is one the test made.
 */
test("[LEARNER] with the event stream unavailable, the page polls: progress and the end still arrive", async ({
  page,
}) => {
  let blocked = 0;
  await page.route("**/api/jobs/events", (route) => {
    blocked++;
    return route.abort("connectionrefused");
  });
  const admin = await signedInRequest(ADMIN);
  const key = (
    await trpc<{ key: string }>(admin, "admin.runtimeKeys.create", { name: `e2e polling ${Date.now()}` }, "mutation")
  ).data.key;
  await signIn(page, ADA);
  const { jobId, rt, lease } = await runningJob(page.request, key, `learner-polling-${Date.now()}`);
  try {
    await polledThrough(page, jobId, lease, () => blocked);
  } finally {
    await lease.stop();
  }
  const failed = await rt.fail(jobId, 1, "INVALID_SCHEMA", "output failed the v1 schema");
  expect(failed.body.status).toBe("failed");
  const row = page.locator(`[data-testid=job-row][data-job-id="${jobId}"]`);
  await expect(row).toHaveAttribute("data-status", "failed");
  // Still no stream: every update above came by polling.
  await expect(page.getByTestId("live-indicator")).toHaveText(/Reconnecting/);
  await admin.dispose();
});

async function polledThrough(page: Page, jobId: string, lease: ReturnType<typeof keepLease>, blocked: () => number) {
  await page.goto("/");
  await expect(page.getByTestId("live-indicator")).toHaveText(/Reconnecting — refreshing every few seconds/);
  await expect.poll(blocked).toBeGreaterThan(0);
  const row = page.locator(`[data-testid=job-row][data-job-id="${jobId}"]`);
  await expect(row).toHaveAttribute("data-status", "running");
  await expect(row.getByTestId("job-stage")).toHaveText("Thinking");
  await expect(row.getByTestId("job-progress")).toHaveText("40%");

  // The Runtime moves on; with no stream open, only the page's polling can bring it here.
  expect((await lease.heartbeat({ stage: "quality_check", progress: 85 })).status).toBe(200);
  await expect(row.getByTestId("job-stage")).toHaveText("Checking the answer");
  await expect(row.getByTestId("job-progress")).toHaveText("85%");
  await shot(page, "polling-fallback");
}
