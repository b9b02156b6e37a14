import { expect, request, test, type APIRequestContext } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { ADA, ADMIN, failedJob, runningJob, runtimeClient, shot, signIn, signedInRequest, trpc } from "./admin-helpers";

/**
 * The admin console in the real browser against the real app, database and reference Runtime.
 * Failed and running jobs are made through the Runtime protocol with a key the admin creates.
 */
let learner: APIRequestContext;
let adminApi: APIRequestContext;
let key: string;
const tag = () => `e2e-${randomUUID().slice(0, 8)}`;

test.beforeAll(async () => {
  learner = await signedInRequest(ADA);
  adminApi = await signedInRequest(ADMIN);
  const created = await trpc<{ key: string }>(
    adminApi,
    "admin.runtimeKeys.create",
    { name: `e2e admin tests ${tag()}` },
    "mutation",
  );
  expect(created.status).toBe(200);
  key = created.data.key;
});

test.afterAll(async () => {
  await learner?.dispose();
  await adminApi?.dispose();
});

test("[ADMIN] finds a failed job by search, reads every attempt's error, re-runs it and sees the new job finish", async ({
  page,
}) => {
  const idem = tag();
  const jobId = await failedJob(learner, key, { retryFirst: true, tag: idem });
  await signIn(page.request, ADMIN);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByText("Queue depth")).toBeVisible();
  await shot(page, "overview");

  await page.getByRole("link", { name: "Jobs", exact: true }).click();
  await page.getByLabel("Search").fill(jobId);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${jobId}`));
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("1 matching");
  const row = page.getByRole("row").filter({ hasText: jobId });
  await expect(row).toContainText("INVALID_SCHEMA");
  await expect(row).toContainText("failed");
  await shot(page, "explorer-search");
  await row.getByRole("link", { name: jobId }).click();

  await expect(page.getByRole("heading", { name: jobId })).toBeVisible();
  const errors = page.getByTestId("attempt-error");
  await expect(errors).toHaveCount(2);
  await expect(errors.nth(0)).toContainText("MODEL_TIMEOUT model took longer than 60 s");
  await expect(errors.nth(1)).toContainText("INVALID_SCHEMA output failed the v1 schema on attempt 2");
  await expect(page.getByRole("list", { name: "Job events" })).toContainText("attempt 2");
  await shot(page, "job-detail-failed");

  await page.getByRole("button", { name: "Re-run job" }).click();
  await expect(page).not.toHaveURL(new RegExp(`/admin/jobs/${jobId}$`));
  const newId = page.url().split("/").at(-1)!;
  await expect(page.getByRole("heading", { name: newId })).toBeVisible();
  await expect(page.getByText("Re-run from:")).toContainText(jobId);
  // The reference Runtime takes the new job and finishes it; the page follows live.
  await expect(page.locator("h1 + span")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByRole("heading", { name: "Result" }).locator("..").locator("..")).toContainText("attempt 1");
  await shot(page, "job-detail-rerun-succeeded");
});

test("[ADMIN] bulk re-runs the failed jobs of one type from a filter; the preview count is what is re-run", async ({
  page,
}) => {
  const t = tag();
  const failed = [];
  for (let i = 0; i < 3; i++)
    failed.push(await failedJob(learner, key, { jobType: "flashcard_generation", tag: `${t}-${i}` }));
  // Same user and state, other type: must stay out of the scope.
  const other = await failedJob(learner, key, { jobType: "weak_point_analysis", tag: `${t}-other` });
  await signIn(page.request, ADMIN);
  await page.goto(`/admin/jobs?status=failed&type=flashcard_generation&user=${encodeURIComponent(ADA.email)}`);
  // Scoped to the page's main: while the page streams in, React can hold a second, hidden copy.
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("3 matching");
  await page.getByRole("button", { name: "Re-run all matching…" }).click();
  const dialog = page.getByRole("dialog", { name: "Re-run jobs" });
  await expect(dialog.getByTestId("bulk-count")).toContainText("This will re-run 3 jobs of 3 matching.");
  await shot(page, "bulk-preview");
  await dialog.getByRole("button", { name: "Re-run 3 jobs" }).click();
  // It runs in the background; the dialog follows its progress to the final count.
  await expect(dialog.getByTestId("bulk-progress")).toHaveAttribute("data-status", "done");
  await expect(dialog.getByTestId("bulk-progress")).toContainText("Finished: 3 of 3 jobs re-run.");
  await shot(page, "bulk-finished");
  await dialog.getByRole("button", { name: "Close" }).click();

  for (const id of failed) {
    const detail = await trpc<{ lineage: { reruns: { id: string }[] } }>(
      adminApi,
      "admin.explorer.detail",
      { jobId: id },
      "query",
    );
    expect(detail.data.lineage.reruns).toHaveLength(1);
  }
  const untouched = await trpc<{ lineage: { reruns: unknown[] } }>(
    adminApi,
    "admin.explorer.detail",
    { jobId: other },
    "query",
  );
  expect(untouched.data.lineage.reruns).toHaveLength(0);
  const audit = await trpc<{ items: { action: string; count: number }[] }>(
    adminApi,
    "admin.monitor.audit",
    { limit: 20 },
    "query",
  );
  expect(audit.data.items.find((a) => a.action === "jobs.bulk_rerun")?.count).toBe(3);
});

test("[ADMIN] cancels a running job; its Runtime learns it on the next heartbeat and the job ends cancelled", async ({
  page,
}) => {
  const { jobId, rt, lease } = await runningJob(learner, key, tag());
  try {
    await signIn(page.request, ADMIN);
    await page.goto(`/admin/jobs/${jobId}`);
    await expect(page.locator("h1 + span")).toHaveText("running");
    await expect(page.getByText(`Holder ${rt.id}`)).toBeVisible();
    await shot(page, "job-detail-running");
    await page.getByRole("button", { name: "Cancel job" }).click();
    await page.getByRole("button", { name: "Confirm cancel" }).click();
    await expect(page.getByText("cancel requested")).toBeVisible();
  } finally {
    await lease.stop();
  }
  const beat = await rt.heartbeat(jobId, 1);
  expect(beat.body.cancelRequested).toBe(true);
  expect((await rt.fail(jobId, 1, "CANCELLED", "stopped on request")).status).toBe(200);
  await expect(page.locator("h1 + span")).toHaveText("cancelled");
});

test("[ADMIN] creates a Runtime key (shown once), which works until it is revoked", async ({ page }) => {
  const name = tag();
  await signIn(page.request, ADMIN);
  await page.goto("/admin/runtimes");
  await page.getByLabel("New key name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByTestId("new-key");
  await expect(shown).toHaveText(/^ajr_/);
  const newKey = (await shown.textContent())!;
  await expect(page.getByTestId(`key-${name}`)).toContainText("active");
  await shot(page, "runtimes-keys");
  expect((await runtimeClient(page.request, newKey).poll()).status).toBe(200);

  await page.getByTestId(`key-${name}`).getByRole("button", { name: "Revoke" }).click();
  await page.getByTestId(`key-${name}`).getByRole("button", { name: "Confirm revoke" }).click();
  await expect(page.getByTestId(`key-${name}`)).toContainText("revoked");
  expect((await runtimeClient(page.request, newKey).poll()).status).toBe(401);
  await page.reload();
  await expect(page.getByTestId("new-key")).toHaveCount(0);
});

test("[ADMIN] creates a service key with chosen scopes (shown once), which calls the platform API until revoked", async ({
  page,
}) => {
  const name = tag();
  await signIn(page.request, ADMIN);
  await page.goto("/admin/runtimes");
  await page.getByLabel("New service key name").fill(name);
  await page.getByRole("checkbox", { name: "jobs:write" }).uncheck();
  await page.getByRole("button", { name: "Create service key" }).click();
  const shown = page.getByTestId("new-service-key");
  await expect(shown).toHaveText(/^ajs_/);
  const key = (await shown.textContent())!;
  const row = page.getByTestId(`service-key-${name}`);
  await expect(row).toContainText("active");
  await expect(row).toContainText("learners:write");
  await expect(row).not.toContainText("jobs:write");
  await expect(row).not.toContainText("data:erase");
  const put = (learner: string) =>
    page.request.put(`/api/v1/learners/${learner}`, {
      data: { name: "From the console key" },
      headers: { authorization: `Bearer ${key}` },
    });
  expect((await put(`e2e-${name}`)).status()).toBe(201);
  // The document sits beside the catch-all route and is public.
  const doc = await page.request.get("/api/v1/openapi.json");
  expect(doc.status()).toBe(200);
  expect((await doc.json()).openapi).toBe("3.1.0");
  const job = await page.request.post(`/api/v1/learners/e2e-${name}/jobs`, {
    data: { jobType: "learning_state_analysis", target: { type: "user" } },
    headers: { authorization: `Bearer ${key}` },
  });
  expect(job.status()).toBe(403);

  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Confirm revoke" }).click();
  await expect(row).toContainText("revoked");
  expect((await put(`e2e-${name}`)).status()).toBe(401);
  await page.reload();
  await expect(page.getByTestId("new-service-key")).toHaveCount(0);
});

const ADMIN_PROCEDURES: [string, "query" | "mutation", unknown][] = [
  ["admin.jobs.rerun", "mutation", { jobId: "x" }],
  ["admin.jobs.cancel", "mutation", { jobId: "x" }],
  ["admin.runtimeKeys.create", "mutation", { name: "learner key" }],
  ["admin.runtimeKeys.list", "query", undefined],
  ["admin.runtimeKeys.revoke", "mutation", { id: "x" }],
  ["admin.serviceKeys.create", "mutation", { name: "learner key", scopes: ["jobs:read"] }],
  ["admin.serviceKeys.list", "query", undefined],
  ["admin.serviceKeys.revoke", "mutation", { id: "x" }],
  ["admin.explorer.list", "query", {}],
  ["admin.explorer.count", "query", {}],
  ["admin.explorer.detail", "query", { jobId: "x" }],
  ["admin.actions.setPriority", "mutation", { jobId: "x", priority: 1 }],
  ["admin.actions.bulkPreview", "query", { action: "cancel", scope: { filter: {} } }],
  ["admin.actions.bulkRun", "mutation", { action: "cancel", scope: { filter: {} }, expectedCount: 1 }],
  ["admin.monitor.overview", "query", { window: "1h" }],
  ["admin.monitor.runtimes", "query", undefined],
  ["admin.monitor.audit", "query", {}],
  ["admin.learnerData.erase", "mutation", { userId: "x", confirmEmail: "x@example.test" }],
];

test("[LEARNER] a learner is kept out of every admin page and procedure", async ({ page }) => {
  await signIn(page.request, ADA);
  for (const path of ["/admin", "/admin/jobs", "/admin/jobs/some-job", "/admin/runtimes", "/admin/audit"]) {
    await page.goto(path);
    await expect(page, path).not.toHaveURL(/\/admin/);
  }
  for (const [path, kind, input] of ADMIN_PROCEDURES) {
    const res = await trpc(page.request, path, input, kind);
    expect(res.status, path).toBe(403);
  }
  const anonymous = await request.newContext({ baseURL: new URL(page.url()).origin });
  for (const [path, kind, input] of ADMIN_PROCEDURES)
    expect((await trpc(anonymous, path, input, kind)).status, path).toBe(401);
  await anonymous.dispose();
});
