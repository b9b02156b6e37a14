import { expect, test, type APIRequestContext } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { ADA, ADMIN, failedJob, rejectedJob, shot, signIn, signedInRequest, trpc } from "./admin-helpers";

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
  const created = await trpc<{ key: string }>(adminApi, "admin.runtimeKeys.create", { name: `e2e diagnosis ${tag()}` }, "mutation");
  key = created.data.key;
});

test.afterAll(async () => {
  await learner?.dispose();
  await adminApi?.dispose();
});

test("[ADMIN] sees which field broke which rule on the failed attempt, and finds such jobs by rule", async ({ page }) => {
  const targets = await trpc<{ materials: { knowledgePoints: { id: string }[] }[] }>(learner, "targets.list", undefined, "query");
  const kp = targets.data.materials.flatMap((m) => m.knowledgePoints)[0]!.id;
  const question = (stem: string, options: string[], answer: string) => ({
    type: "single_choice", stem, options, answer, explanation: "Because.", knowledgePointId: kp, difficulty: "medium",
  });
  // The second question has two options equal to its answer: the rule "exactly one correct option".
  const output = { questions: [question("What do plants make?", ["Glucose", "Salt"], "Glucose"), question("Which gas?", ["Oxygen", "oxygen", "Neon"], "Oxygen")] };
  const { jobId, violations } = await rejectedJob(learner, key, output, tag());
  expect(violations).toContainEqual(expect.objectContaining({ path: "questions.1.answer", rule: "one_correct_option" }));

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
  await expect(page.getByTestId("match-count")).toHaveText("1 matching");
  await shot(page, "explorer-by-rule");
  await page.goto(`/admin/jobs?rule=duplicate_front&q=${jobId}`);
  await expect(page.getByTestId("match-count")).toHaveText("0 matching");
});

test("[ADMIN] a failure spike raises the console's banner on every page", async ({ page }) => {
  type Alerts = { alerts: { code: string }[] };
  const spiking = async () => (await trpc<Alerts>(adminApi, "admin.monitor.alerts", undefined, "query")).data.alerts.some((a) => a.code === "FAILURE_RATE");
  // Enough non-retryable failures in the last 15 minutes to pass the configured share.
  for (let i = 0; i < 12 && !(await spiking()); i++) await failedJob(learner, key, { jobType: "weak_point_analysis", tag: `${tag()}-${i}` });
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
