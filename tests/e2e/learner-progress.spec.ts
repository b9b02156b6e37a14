import { expect, test, type APIRequestContext } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { ADMIN, holdReferenceRuntime, runtimeClient, signedInRequest, trpc } from "./admin-helpers";
import { BEN, rowsOf, shot, signIn } from "./learner-helpers";

/**
 * The learner's side over time, in the real browser against the real app and reference Runtime:
 * their own DeepSeek key (shown as its last four characters, handed to the Runtime that holds the
 * lease), next-step ticks that survive a reload, mastery over several analyses, the full history.
 */
const CHEN = { email: "chen@example.com", password: "learner-demo-password" };
type Job = { id: string; status: string; apiKeyMode: string };

let adminApi: APIRequestContext;
test.beforeAll(async () => {
  adminApi = await signedInRequest(ADMIN);
});
test.afterAll(async () => adminApi?.dispose());

/** Creates a job as `api`'s learner and waits until the reference Runtime has finished it. */
async function finishedJob(api: APIRequestContext, jobType: string, params: Record<string, unknown> = {}) {
  const me = await trpc<{ user: { id: string } }>(api, "me.get", undefined, "query");
  const created = await trpc<{ job: Job }>(
    api,
    "jobs.create",
    { jobType, target: { type: "user", id: me.data.user.id }, params, idempotencyKey: randomUUID() },
    "mutation",
  );
  expect(created.status, JSON.stringify(created.error)).toBe(200);
  await expect
    .poll(
      async () => (await trpc<{ job: Job }>(api, "jobs.get", { jobId: created.data.job.id }, "query")).data.job.status,
      { timeout: 60_000 },
    )
    .toBe("succeeded");
  return created.data.job.id;
}

test("[LEARNER] saves their own DeepSeek key, sees only its last four characters, and jobs use it", async ({
  page,
}) => {
  const secret = `sk-e2e-${randomUUID().replace(/-/g, "")}WXYZ`;
  await signIn(page, CHEN);
  await page.goto("/");
  await page.getByLabel("DeepSeek API key").fill(secret);
  await page.getByRole("button", { name: "Save key" }).click();
  await expect(page.getByTestId("masked-key")).toContainText("••••WXYZ");
  await page.getByRole("radio", { name: /My own DeepSeek key/ }).check();
  await expect(page.getByRole("radio", { name: /My own DeepSeek key/ })).toBeChecked();
  // The key never comes back to the browser: not in the page, not in any answer it received.
  await page.reload();
  await expect(page.getByTestId("masked-key")).toContainText("••••WXYZ");
  expect(await page.content()).not.toContain(secret.slice(0, -4));
  const credential = await (await page.request.get("/api/trpc/credentials.get")).text();
  expect(credential).toContain("WXYZ");
  expect(credential).not.toContain(secret.slice(0, -4));
  await shot(page, "own-key-saved");

  // Using it: a job created now runs on the learner's key, which only the lease holder receives.
  const chen = await signedInRequest(CHEN);
  const created = await trpc<{ key: string }>(
    adminApi,
    "admin.runtimeKeys.create",
    // The scope to receive learners' own keys (docs/contract.md#consent-credentials-and-cancellation): a key without it never takes such a job.
    { name: `e2e own key ${randomUUID().slice(0, 6)}`, mayReceiveLearnerKeys: true },
    "mutation",
  );
  const rt = runtimeClient(chen, created.data.key);
  const me = await trpc<{ user: { id: string } }>(chen, "me.get", undefined, "query");
  // The reference Runtime is held off the type (the admin's key-scope control), so this Runtime's lock is the one.
  const release = await holdReferenceRuntime(adminApi, ["weak_point_analysis"]);
  try {
    const job = await trpc<{ job: Job }>(
      chen,
      "jobs.create",
      { jobType: "weak_point_analysis", target: { type: "user", id: me.data.user.id }, idempotencyKey: randomUUID() },
      "mutation",
    );
    expect(job.data.job.apiKeyMode).toBe("user_deepseek_key");
    const lock = await rt.lock(job.data.job.id);
    expect(lock.status).toBe(200);
    expect(lock.body.job.model.apiKey).toBe(secret);
    expect((await rt.fail(job.data.job.id, 1, "INVALID_CREDENTIAL", "e2e: key checked, not used")).status).toBe(200);
  } finally {
    await release();
  }

  // Deleting the key moves the learner back to the platform's key.
  await page.getByRole("button", { name: "Delete key" }).click();
  await expect(page.getByTestId("masked-key")).toHaveCount(0);
  await expect(page.getByRole("radio", { name: /The platform’s key/ })).toBeChecked();
  await chen.dispose();
});

test("[LEARNER] ticks on next steps are saved; mastery shows across analyses; the whole history pages in", async ({
  page,
}) => {
  const ben = await signedInRequest(BEN);
  const plan = await finishedJob(ben, "next_action_planning");
  await finishedJob(ben, "learning_state_analysis");
  await finishedJob(ben, "learning_state_analysis");

  await signIn(page, BEN);
  await page.goto(`/jobs/${plan}`);
  const step = page.getByTestId("next-action").first();
  await step.getByRole("checkbox").check();
  await expect(step).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId("plan-summary")).toContainText("1 done");
  await page.reload();
  await expect(page.getByTestId("next-action").first()).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId("next-action").first().getByRole("checkbox")).toBeChecked();
  await shot(page, "next-actions-saved");

  const chart = page.getByTestId("mastery-history");
  await chart.scrollIntoViewIfNeeded();
  const lines = chart.getByTestId("mastery-line");
  expect(await lines.count()).toBeGreaterThanOrEqual(3);
  await expect(lines.first()).toHaveAttribute("data-points", /^[2-9]|\d\d+$/);
  await shot(page, "mastery-over-time");
  // A topic's line can be hidden from its legend button.
  const firstTopic = chart.getByRole("list", { name: "Topics" }).getByRole("button").first();
  await firstTopic.click();
  await expect(firstTopic).toHaveAttribute("aria-pressed", "false");
  await expect(lines).toHaveCount((await chart.getByRole("list", { name: "Topics" }).getByRole("button").count()) - 1);

  // More than the live list holds: cancelled jobs fill Ben's history past one page.
  const me = await trpc<{ user: { id: string } }>(ben, "me.get", undefined, "query");
  for (let i = 0; i < 24; i++) {
    const job = await trpc<{ job: Job }>(
      ben,
      "jobs.create",
      {
        jobType: "flashcard_generation",
        target: { type: "user", id: me.data.user.id },
        params: { count: 2 },
        idempotencyKey: randomUUID(),
      },
      "mutation",
    );
    await trpc(ben, "jobs.cancel", { jobId: job.data.job.id }, "mutation");
  }
  const all = await trpc<{ total: number }>(ben, "jobs.list", { pageSize: 1 }, "query");
  await page.goto("/");
  await expect(rowsOf(page, "flashcard_generation").first()).toBeVisible();
  await expect(page.getByRole("list", { name: "analyses" }).getByTestId("job-row")).toHaveCount(20);
  // Page in until the end, one click at a time. The list may read on by itself after a page that
  // brings nothing new, so each step waits until it has settled (nothing in flight, no read-on
  // pending): then the button or the end it shows stays as it is until the test acts.
  const history = page.getByTestId("older-history");
  const end = page.getByTestId("history-end");
  const older = page.getByRole("button", { name: "Show older analyses" });
  const pages = async () => Number(await history.getAttribute("data-pages"));
  for (let i = 0; i < 20; i++) {
    await expect(history).toHaveAttribute("data-settled", "true");
    if (await end.isVisible()) break;
    const before = await pages();
    await older.click();
    await expect(history).toHaveAttribute("data-pages", new RegExp(`^(?!${before}$)\\d+$`));
  }
  await expect(page.getByTestId("history-end")).toContainText(`${all.data.total} analyses in all`);
  await expect(page.getByRole("list", { name: "older analyses" }).getByTestId("job-row")).toHaveCount(
    all.data.total - 20,
  );
  await shot(page, "history-all");
  await ben.dispose();
});
