import { expect, test } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { ADA, ADMIN, failedJob, shot, signIn, signedInRequest, trpc } from "./admin-helpers";

/**
 * The zero-setup webhook delivery log in the console. The e2e server (scripts/e2e-server.ts) sets
 * JOB_WEBHOOK_URL to a small receiver of its own that answers 200, so a job finished here is
 * recorded and delivered like in production, and the admin reads it on /admin/webhooks.
 */
type Deliveries = {
  items: { jobId: string; status: string; attempts: number; lastStatusCode: number | null }[];
  configured: boolean;
};

test("[ADMIN] a finished job's webhook shows as delivered on the webhooks page", async ({ page }) => {
  const admin = await signedInRequest(ADMIN);
  const learner = await signedInRequest(ADA);
  const key = (
    await trpc<{ key: string }>(
      admin,
      "admin.runtimeKeys.create",
      { name: `e2e webhooks ${randomUUID().slice(0, 8)}` },
      "mutation",
    )
  ).data.key;
  const jobId = await failedJob(learner, key, { tag: `e2e-webhooks-${randomUUID().slice(0, 8)}` });

  // The relay sends it as soon as it sees the job finish; the scheduler retries every 5 s otherwise.
  await expect
    .poll(
      async () => (await trpc<Deliveries>(admin, "admin.webhooks.list", { jobId }, "query")).data.items[0]?.status,
      { timeout: 30_000 },
    )
    .toBe("delivered");
  const log = (await trpc<Deliveries>(admin, "admin.webhooks.list", { jobId, status: "delivered" }, "query")).data;
  expect(log.configured).toBe(true);
  expect(log.items[0]).toMatchObject({ jobId, status: "delivered", attempts: 1, lastStatusCode: 200 });

  await signIn(page.request, ADMIN);
  await page.goto("/admin/webhooks");
  await expect(page.getByRole("heading", { level: 1, name: "Webhook deliveries" })).toBeVisible();
  await expect(page.getByRole("navigation").getByRole("link", { name: "Webhooks" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const row = page.getByTestId(`delivery-${jobId}`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("delivery-state")).toHaveText("delivered");
  await expect(row).toContainText("failed");
  await expect(row).toContainText("HTTP 200");
  await expect(row.getByRole("link", { name: jobId })).toHaveAttribute("href", `/admin/jobs/${jobId}`);
  await expect(page.getByRole("region", { name: "Webhook deliveries" })).toHaveAttribute("tabindex", "0");
  await shot(page, "webhooks");

  // The state filter: our delivered row is not among the ones that gave up.
  await page.getByLabel("State").selectOption("failed");
  await expect(page.getByTestId(`delivery-${jobId}`)).toHaveCount(0);

  await admin.dispose();
  await learner.dispose();
});

test("[ADMIN] a learner gets no webhook log: page redirects, procedure answers 403", async ({ page }) => {
  await signIn(page.request, ADA);
  await page.goto("/admin/webhooks");
  await expect(page).not.toHaveURL(/\/admin/);
  expect((await trpc(page.request, "admin.webhooks.list", {}, "query")).status).toBe(403);
});
