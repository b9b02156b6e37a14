import { expect, test, type APIRequestContext } from "@playwright/test";
import { randomUUID } from "node:crypto";
import {
  ADA,
  ADMIN,
  failedJob,
  holdReferenceRuntime,
  rejectedJob,
  shot,
  signIn,
  signedInRequest,
  trpc,
} from "./admin-helpers";

/**
 * "Why did it fail": a Runtime's refused output is shown at its attempt with the broken rules and
 * the offending fields marked; the explorer finds such jobs by rule; the console warns about a
 * failure spike. Real browser, real app, real database.
 */
let learner: APIRequestContext;
let adminApi: APIRequestContext;
let key: string;
const tag = () => `e2e-diag-${randomUUID().slice(0, 8)}`;

test.beforeAll(async () => {
  learner = await signedInRequest(ADA);
  adminApi = await signedInRequest(ADMIN);
  const created = await trpc<{ key: string }>(
    adminApi,
    "admin.runtimeKeys.create",
    { name: `e2e diagnosis ${tag()}` },
    "mutation",
  );
  key = created.data.key;
});

test.afterAll(async () => {
  await learner?.dispose();
  await adminApi?.dispose();
});

type Run = { id: string; status: string; total: number; processed: number; affected: number };

test("[ADMIN] sees which field broke which rule on the failed attempt, and finds such jobs by rule", async ({
  page,
}) => {
  const targets = await trpc<{ materials: { knowledgePoints: { id: string }[] }[] }>(
    learner,
    "targets.list",
    undefined,
    "query",
  );
  const kp = targets.data.materials.flatMap((m) => m.knowledgePoints)[0]!.id;
  const question = (stem: string, options: string[], answer: string) => ({
    type: "single_choice",
    stem,
    options,
    answer,
    explanation: "Because.",
    knowledgePointId: kp,
    difficulty: "medium",
  });
  // The second question has two options equal to its answer: the rule "exactly one correct option".
  const output = {
    questions: [
      question("What do plants make?", ["Glucose", "Salt"], "Glucose"),
      question("Which gas?", ["Oxygen", "oxygen", "Neon"], "Oxygen"),
    ],
  };
  const { jobId, violations } = await rejectedJob(learner, key, output, tag());
  expect(violations).toContainEqual(
    expect.objectContaining({ path: "questions.1.answer", rule: "one_correct_option" }),
  );

  await signIn(page.request, ADMIN);
  await page.goto(`/admin/jobs/${jobId}`);
  await expect(page.getByRole("heading", { name: jobId })).toBeVisible();
  const rejection = page.getByTestId("rejection-1");
  await expect(rejection).toBeVisible();
  const rows = rejection.getByTestId("violation");
  await expect(rows.filter({ hasText: "one_correct_option" })).toContainText("questions.1.answer");
  await expect(rows.filter({ hasText: "options_repeat" })).toContainText("questions.1.options");
  // The offending fields are marked inside the output the Runtime sent.
  const marked = rejection.locator("mark[data-path='questions.1.answer']");
  await expect(marked).toHaveText('"Oxygen"');
  await expect(rejection.locator("mark[data-path='questions.1.options']")).toContainText('"oxygen"');
  await expect(rejection.locator("mark")).toHaveCount(2);
  await expect(rejection.getByTestId("rejected-output")).toContainText('"What do plants make?"');
  await rejection.scrollIntoViewIfNeeded();
  await shot(page, "job-detail-rejected-output");

  await page.goto(`/admin/jobs?rule=one_correct_option&q=${jobId}`);
  await expect(page.getByLabel("Violated rule")).toHaveValue("one_correct_option");
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("1 matching");
  await shot(page, "explorer-by-rule");
  await page.goto(`/admin/jobs?rule=duplicate_front&q=${jobId}`);
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("0 matching");
});

test("[ADMIN] sees the output a Runtime's own quality loop rejected, reported with fail, at that attempt with the path marked", async ({
  page,
}) => {
  const targets = await trpc<{ materials: { knowledgePoints: { id: string }[] }[] }>(
    learner,
    "targets.list",
    undefined,
    "query",
  );
  const kp = targets.data.materials.flatMap((m) => m.knowledgePoints)[0]!.id;
  // What the model last sent after the Runtime's quality loops: the answer is not among the options.
  const rejectedOutput = {
    questions: [
      {
        type: "single_choice",
        stem: "Which gas do plants release?",
        options: ["Oxygen", "Neon"],
        answer: "Nitrogen",
        explanation: "Photosynthesis.",
        knowledgePointId: kp,
        difficulty: "medium",
      },
      {
        type: "single_choice",
        stem: "What do plants make?",
        options: ["Glucose", "Salt"],
        answer: "Glucose",
        explanation: "Because.",
        knowledgePointId: kp,
        difficulty: "medium",
      },
    ],
  };
  const violations = [
    { path: "questions.0.answer", rule: "one_correct_option", message: "the answer is not one of the options" },
  ];
  // Attempt 1 times out (retryable); attempt 2 gives up after the quality loop and reports the rejection.
  const jobId = await failedJob(learner, key, {
    retryFirst: true,
    tag: tag(),
    rejection: { rejectedOutput, violations },
  });

  await signIn(page.request, ADMIN);
  await page.goto(`/admin/jobs/${jobId}`);
  await expect(page.getByRole("heading", { name: jobId })).toBeVisible();
  await expect(page.getByTestId("rejection-1")).toHaveCount(0);
  const rejection = page.getByTestId("rejection-2");
  await expect(rejection).toBeVisible();
  await expect(rejection.getByTestId("violation").filter({ hasText: "one_correct_option" })).toContainText(
    "questions.0.answer",
  );
  await expect(rejection.locator("mark[data-path='questions.0.answer']")).toHaveText('"Nitrogen"');
  await expect(rejection.locator("mark")).toHaveCount(1);
  await expect(rejection.getByTestId("rejected-output")).toContainText('"Which gas do plants release?"');
  await shot(page, "job-detail-runtime-reported-rejection");

  await page.goto(`/admin/jobs?rule=one_correct_option&q=${jobId}`);
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("1 matching");
});

test("[ADMIN] a failure spike raises the console's banner on every page", async ({ page }) => {
  type Alerts = { alerts: { code: string }[] };
  const spiking = async () =>
    (await trpc<Alerts>(adminApi, "admin.monitor.alerts", undefined, "query")).data.alerts.some(
      (a) => a.code === "FAILURE_RATE",
    );
  // Enough non-retryable failures in the last 15 minutes to pass the configured share.
  for (let i = 0; i < 12 && !(await spiking()); i++)
    await failedJob(learner, key, { jobType: "weak_point_analysis", tag: `${tag()}-${i}` });
  expect(await spiking()).toBe(true);

  await signIn(page.request, ADMIN);
  await page.goto("/admin");
  const banner = page.getByTestId("alert-banner");
  await expect(banner.locator("[data-alert='FAILURE_RATE']")).toContainText("Failures are spiking.");
  await expect(banner).toContainText("failed (threshold 25%)");
  await shot(page, "alert-banner");
  await banner.getByRole("link", { name: "Failed jobs" }).click();
  await expect(page).toHaveURL(/\/admin\/jobs\?status=failed/);
  await expect(page.getByTestId("alert-banner")).toBeVisible();
});

/**
 * `n` jobs of Ada's of one type, made while the reference Runtime is held off that type (so they
 * stay pending), and a bulk cancel of exactly those jobs started paused through the admin API.
 */
async function pausedBulkCancel(jobType: string, n: number) {
  const me = await trpc<{ user: { id: string } }>(learner, "me.get", undefined, "query");
  const t = tag();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await trpc<{ job: { id: string } }>(
      learner,
      "jobs.create",
      {
        jobType,
        target: { type: "user", id: me.data.user.id },
        ...(jobType === "flashcard_generation" ? { params: { count: 2 } } : {}),
        idempotencyKey: `${t}-${i}`,
      },
      "mutation",
    );
    expect(res.status).toBe(200);
    ids.push(res.data.job.id);
  }
  const started = await trpc<Run & { paused: boolean }>(
    adminApi,
    "admin.actions.bulkRun",
    { action: "cancel", scope: { ids }, expectedCount: n, paused: true },
    "mutation",
  );
  expect(started.status, JSON.stringify(started.error)).toBe(200);
  expect(started.data).toMatchObject({ status: "running", paused: true, total: n, processed: 0 });
  return started.data;
}

test("[ADMIN] the Jobs page lists bulk runs with their progress and final counts; a run can be stopped", async ({
  page,
}) => {
  const release = await holdReferenceRuntime(adminApi, ["flashcard_generation"]);
  try {
    const run = await pausedBulkCancel("flashcard_generation", 30);
    await signIn(page.request, ADMIN);
    await page.goto("/admin/jobs");
    const item = page.getByRole("list", { name: "Bulk actions" }).getByRole("listitem").first();
    const line = item.getByTestId("bulk-progress");
    await expect(line).toHaveAttribute("data-status", "paused");
    await expect(line.getByRole("status")).toHaveText("0 of 30 handled · 0 cancelled · paused");
    // One batch (5, the e2e server's BULK_BATCH_SIZE), then stopped: it ends with exactly those.
    await item.getByRole("button", { name: "Run one batch" }).click();
    await expect(line.getByRole("status")).toHaveText("5 of 30 handled · 5 cancelled · paused");
    await item.getByRole("button", { name: "Stop this bulk action" }).click();
    const ended = page.getByRole("list", { name: "Bulk actions" }).getByTestId("bulk-progress").first();
    await expect(ended).toHaveAttribute("data-status", "cancelled");
    await expect(ended.getByRole("status")).toHaveText("Stopped: 5 of 30 jobs cancelled. cancelled after 5 of 30.");
    await expect(ended.getByRole("progressbar")).toHaveAttribute("aria-valuemax", "30");
    await expect(ended.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "5");
    await shot(page, "bulk-runs-panel");
    const status = await trpc<Run>(adminApi, "admin.actions.bulkStatus", { id: run.id }, "query");
    expect(status.data).toMatchObject({ status: "cancelled", processed: 5, affected: 5, total: 30 });
    const audit = await trpc<{ items: { action: string; count: number; scope: { bulkRunId?: string } }[] }>(
      adminApi,
      "admin.monitor.audit",
      { limit: 50 },
      "query",
    );
    const mine = audit.data.items.filter((a) => a.scope?.bulkRunId === run.id);
    expect(mine.map((a) => [a.action, a.count]).sort()).toEqual([
      ["jobs.bulk_cancel", 5],
      ["jobs.bulk_step", 5],
    ]);
  } finally {
    await release();
  }
});

test("[ADMIN] a large bulk run shows its progress while it runs (paused at a batch boundary), then its final count", async ({
  page,
}) => {
  const release = await holdReferenceRuntime(adminApi, ["next_action_planning"]);
  try {
    const run = await pausedBulkCancel("next_action_planning", 32);
    await signIn(page.request, ADMIN);
    await page.goto("/admin/jobs");
    const item = page.getByRole("list", { name: "Bulk actions" }).getByRole("listitem").first();
    const line = item.getByTestId("bulk-progress");
    await expect(line.getByRole("status")).toHaveText("0 of 32 handled · 0 cancelled · paused");
    // Two batches by hand: the bar and the words both say exactly how far it is.
    await item.getByRole("button", { name: "Run one batch" }).click();
    await expect(line.getByRole("status")).toHaveText("5 of 32 handled · 5 cancelled · paused");
    await item.getByRole("button", { name: "Run one batch" }).click();
    await expect(line.getByRole("status")).toHaveText("10 of 32 handled · 10 cancelled · paused");
    const bar = line.getByRole("progressbar");
    await expect(bar).toHaveAttribute("aria-valuenow", "10");
    await expect(bar).toHaveAttribute("aria-valuemax", "32");
    await expect(line).toHaveAttribute("data-status", "paused");
    await expect(item.getByRole("button", { name: "Resume" })).toBeVisible();
    await expect(item.getByRole("button", { name: "Stop this bulk action" })).toBeVisible();
    await shot(page, "bulk-run-in-progress");
    // Resumed, it runs on by itself (polled) and ends with the audited count.
    await item.getByRole("button", { name: "Resume" }).click();
    const finished = page.getByRole("list", { name: "Bulk actions" }).getByTestId("bulk-progress").first();
    await expect(finished).toHaveAttribute("data-status", "done", { timeout: 30_000 });
    await expect(finished.getByRole("status")).toHaveText("Finished: 32 of 32 jobs cancelled.");
    const ended = await trpc<Run>(adminApi, "admin.actions.bulkStatus", { id: run.id }, "query");
    expect(ended.data).toMatchObject({ status: "done", processed: 32, affected: 32 });
  } finally {
    await release();
  }
});
