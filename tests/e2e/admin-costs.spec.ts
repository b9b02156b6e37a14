import { expect, test, type APIRequestContext } from "@playwright/test";
import { ADMIN, runtimeClient, shot, signedInRequest, trpc } from "./admin-helpers";
import { BEN, signIn, shot as learnerShot } from "./learner-helpers";

/**
 * The overview's usage and cost panel shows what Runtimes
 * reported, and a learner whose daily token budget on the platform key is used up reads it in
 * plain words. Ben is used (not Ada) so other specs' learner never meets a lowered budget.
 */
test.describe.configure({ mode: "serial" });

type Costs = {
  total: { tokens: number; cost: number };
  byKeyMode: { apiKeyMode: string; tokens: number }[];
  topLearners: { email: string | null; tokens: number }[];
};
const USAGE = [
  { jobType: "quiz_generation", params: { count: 2 }, promptTokens: 12_000, completionTokens: 3_000 },
  { jobType: "weak_point_analysis", params: {}, promptTokens: 8_000, completionTokens: 2_000 },
];

/** Creates a job as Ben, takes its lease before the e2e server's reference Runtime does, and fails it reporting usage. */
async function jobWithUsage(ben: APIRequestContext, key: string, u: (typeof USAGE)[number], tag: string) {
  const me = await trpc<{ user: { id: string } }>(ben, "me.get", undefined, "query");
  for (let round = 0; round < 6; round++) {
    const rt = runtimeClient(ben, key);
    const created = await trpc<{ job: { id: string } }>(
      ben,
      "jobs.create",
      {
        jobType: u.jobType,
        target: { type: "user", id: me.data.user.id },
        params: u.params,
        idempotencyKey: `${tag}-${round}`,
      },
      "mutation",
    );
    expect(created.status, JSON.stringify(created.error)).toBe(200);
    const jobId = created.data.job.id;
    if ((await rt.lock(jobId)).status !== 200) continue;
    const res = await ben.post(`/internal/runtime/jobs/${jobId}/fail`, {
      data: {
        runtimeInstanceId: rt.id,
        attemptNo: 1,
        errorCode: "INVALID_SCHEMA",
        errorMessage: "e2e: model answer off schema",
        usage: {
          provider: "deepseek",
          model: "deepseek-chat",
          promptTokens: u.promptTokens,
          completionTokens: u.completionTokens,
          durationMs: 900,
        },
      },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status(), await res.text()).toBe(200);
    return jobId;
  }
  throw new Error("the reference Runtime won every race for a fresh job");
}

test("[ADMIN] the overview's cost panel shows reported tokens and estimated cost per day, key and learner", async ({
  page,
}) => {
  const admin = await signedInRequest(ADMIN);
  const ben = await signedInRequest(BEN);
  expect((await trpc(ben, "consent.set", { granted: true }, "mutation")).status).toBe(200);
  const key = (
    await trpc<{ key: string }>(admin, "admin.runtimeKeys.create", { name: `e2e costs ${Date.now()}` }, "mutation")
  ).data.key;
  const before = (await trpc<Costs>(admin, "admin.monitor.costs", undefined, "query")).data;
  for (const [i, u] of USAGE.entries()) await jobWithUsage(ben, key, u, `e2e-costs-${Date.now()}-${i}`);
  const after = (await trpc<Costs>(admin, "admin.monitor.costs", undefined, "query")).data;
  const reported = USAGE.reduce((s, u) => s + u.promptTokens + u.completionTokens, 0);
  // Other specs' jobs run on the local analyzer, which reports zero tokens: the difference is ours.
  expect(after.total.tokens - before.total.tokens).toBe(reported);
  expect(after.total.cost - before.total.cost).toBeCloseTo((20_000 * 0.27 + 5_000 * 1.1) / 1e6, 9);
  expect(after.topLearners.find((l) => l.email === BEN.email)?.tokens).toBeGreaterThanOrEqual(reported);

  await signIn(page, ADMIN);
  await page.goto("/admin");
  const panel = page.getByTestId("costs-panel");
  await expect(panel).toBeVisible();
  await expect(page.getByTestId("costs-total")).toContainText(`${after.total.tokens.toLocaleString("en-US")} tokens`);
  await expect(page.getByTestId("costs-total")).toContainText("per million prompt / completion tokens");
  await expect(page.getByTestId("costs-by-key")).toContainText("Platform key");
  await expect(page.getByTestId("costs-by-type")).toContainText("quiz generation");
  await expect(page.getByTestId("costs-top-learners")).toContainText(BEN.email);
  await expect(page.getByTestId("costs-day")).toHaveCount(14);
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "costs-panel");
});

test("[ADMIN][LEARNER] a used-up daily token budget refuses new analyses with a plain message; the admin raises it", async ({
  page,
  browser,
}) => {
  const ben = await signedInRequest(BEN);
  expect((await trpc(ben, "consent.set", { granted: true }, "mutation")).status).toBe(200);

  // The admin sets Ben's platform-key budget to 0 tokens on the Quotas page: today's is used up.
  await signIn(page, ADMIN);
  await page.goto("/admin/quotas");
  await page.getByLabel("Learner email or id").fill(BEN.email);
  await page.getByRole("button", { name: "Show" }).click();
  const row = page.getByTestId("quota-tokens-day");
  await expect(row).toContainText("Platform-key tokens per day");
  await row.getByLabel(/New limit/).fill("0");
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row).toContainText("raised or lowered for this learner");
  try {
    // A page of its own context: axe (run by the screenshot helper) refuses pages made by browser.newPage().
    const learner = await (await browser.newContext()).newPage();
    await signIn(learner, BEN);
    await learner.goto("/");
    await expect(learner.getByTestId("quota-line")).toHaveText(
      /You have used today's AI budget on the platform key; it resets at .+\./,
    );
    await learner.getByRole("button", { name: "Start Weak points" }).click();
    await expect(learner.getByRole("status").filter({ hasText: "AI budget" })).toHaveText(
      /You have used today's AI budget; it resets at .+\./,
    );
    await learnerShot(learner, "token-budget-used");
    const me = await trpc<{ user: { id: string } }>(ben, "me.get", undefined, "query");
    const refused = await trpc(
      ben,
      "jobs.create",
      {
        jobType: "weak_point_analysis",
        target: { type: "user", id: me.data.user.id },
        idempotencyKey: `e2e-budget-${Date.now()}`,
      },
      "mutation",
    );
    expect(refused.status).toBe(429);
    expect(refused.error.data).toMatchObject({ appCode: "QUOTA_EXCEEDED", details: { metric: "tokens", allowed: 0 } });

    // Raised back to the default: Ben can start analyses again.
    await row.getByRole("button", { name: "Default" }).click();
    await expect(row).not.toContainText("raised or lowered");
    await learner.reload();
    await expect(learner.getByTestId("quota-line")).toHaveText(
      /You can start [\d,]+ more analys[ie]s this hour and [\d,]+ more today\./,
    );
    await learner.close();
  } finally {
    // Whatever failed above, Ben leaves with the default budget.
    const admin = await signedInRequest(ADMIN);
    const who = await trpc<{ user: { id: string } }>(admin, "admin.quotas.get", { user: BEN.email }, "query");
    await trpc(
      admin,
      "admin.quotas.setLimit",
      { userId: who.data.user.id, metric: "tokens", period: "day", allowed: null },
      "mutation",
    );
  }
});
