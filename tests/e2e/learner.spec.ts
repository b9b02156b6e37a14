import { expect, test } from "@playwright/test";
import { ADMIN, holdReferenceRuntime, signedInRequest } from "./admin-helpers";
import { ADA, recordProgress, rowsOf, seenProgress, shot, signIn } from "./learner-helpers";

/**
 * The learner page end to end, in the real browser against the real app and a reference Runtime
 * (local analyzer, a small per-stage delay). One learner's story in order, so each step builds on
 * the one before: the first analyses, the quiz played, the next analysis seeing the new answers.
 */
test.describe.configure({ mode: "serial" });

const TYPES = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
] as const;

test("[LEARNER] trigger all five analyses, watch them move live, and every result renders", async ({ page }) => {
  await signIn(page, ADA);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Your AI study coach" })).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveText(/Live updates on/);
  await shot(page, "empty");

  await page.getByLabel("Questions", { exact: true }).fill("3");
  await page.getByLabel("Cards", { exact: true }).fill("4");
  // Work for another target first: the Runtime (four at a time) is busy with it, so the five
  // analyses below are listed while they wait, then move through their stages on screen.
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const list = (await (await page.request.get("/api/trpc/targets.list")).json()).result.data as {
    materials: { id: string; knowledgePoints: { id: string }[] }[];
  };
  const busy = list.materials[1]!;
  for (const target of [
    { type: "material", id: busy.id },
    ...busy.knowledgePoints.map((k) => ({ type: "knowledge_point", id: k.id })),
  ]) {
    const res = await page.request.post("/api/trpc/analyses.trigger", {
      headers: { origin },
      data: { target, jobTypes: TYPES },
    });
    expect(res.status()).toBe(200);
  }
  await recordProgress(page);
  await page.getByRole("button", { name: "Run all five" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Started 5 analyses" })).toBeVisible();

  for (const type of TYPES)
    await expect(rowsOf(page, type).first()).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  const { seen, statuses } = await seenProgress(page);
  // Stage and percentage took several values between the start and the end, pushed to the page.
  expect(new Set(seen.map((s) => s.split("|")[0])).size, seen.join(", ")).toBeGreaterThanOrEqual(2);
  expect(
    seen.some((s) => !/\|(0|100)%$/.test(s)),
    seen.join(", "),
  ).toBe(true);
  expect(statuses).toEqual(expect.arrayContaining(["pending", "succeeded"]));

  await rowsOf(page, "learning_state_analysis").first().getByRole("button").first().click();
  await expect(page.getByTestId("mastery-row").first()).toBeVisible();
  expect(await page.getByTestId("mastery-row").count()).toBeGreaterThanOrEqual(6);
  await expect(page.getByText("Overall mastery", { exact: true })).toBeVisible();
  await shot(page, "learning-state");

  await rowsOf(page, "weak_point_analysis").first().getByRole("button").first().click();
  await expect(page.getByTestId("weak-point").first()).toContainText("severity");
  await shot(page, "weak-points");

  await rowsOf(page, "next_action_planning").first().getByRole("button").first().click();
  const action = page.getByTestId("next-action").first();
  await expect(action).toContainText(/~\d+ min/);
  await action.getByRole("checkbox").check();
  await expect(action.getByRole("checkbox")).toBeChecked();
  await shot(page, "next-actions");

  await rowsOf(page, "flashcard_generation").first().getByRole("button").first().click();
  await expect(page.getByTestId("flashcard")).toHaveCount(4);
  const card = page.getByTestId("flashcard").first();
  const front = await card.getByRole("button").textContent();
  await card.getByRole("button").click();
  await expect(card.getByRole("button")).toHaveAttribute("aria-pressed", "true");
  expect(await card.getByRole("button").textContent()).not.toBe(front);
  await card.getByRole("checkbox", { name: "I know this" }).click();
  await expect(page.getByTestId("known-count")).toHaveText("1 of 4 known");
  await shot(page, "flashcards");
  // The mark is saved: it is still there after a reload (the job's own URL).
  await page.reload();
  await expect(page.getByTestId("known-count")).toHaveText("1 of 4 known");

  // A phone-sized screen: everything fits the width, nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("button", { name: "Run all five" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "phone");
});

test("[LEARNER] play the quiz, see the score, and the next analysis counts the new answers", async ({ page }) => {
  await signIn(page, ADA);
  await page.goto("/");
  await rowsOf(page, "learning_state_analysis").first().getByRole("button").first().click();
  await expect(page.getByTestId("mastery-row").first()).toBeVisible();
  const answersBefore = await totalAnswers(page);

  await rowsOf(page, "quiz_generation").first().getByRole("button").first().click();
  const questions = page.getByTestId("quiz-question");
  await expect(questions).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    const q = questions.nth(i);
    if (await q.getByRole("radio").count()) await q.getByRole("radio").first().check();
    else await q.getByRole("textbox").fill("my answer");
  }
  await page.getByRole("button", { name: "Submit answers" }).click();
  await expect(page.getByTestId("quiz-score")).toContainText(/You scored [0-3] \/ 3/);
  await expect(questions.first()).toContainText(/Correct|Not quite/);
  await shot(page, "quiz-scored");

  await page.getByRole("button", { name: "Start Learning state" }).click();
  await expect(page.getByTestId("detail-body")).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("mastery-row").first()).toBeVisible();
  expect(await totalAnswers(page)).toBe(answersBefore + 3);
  await expect(page.getByTestId("history").getByRole("button")).not.toHaveCount(0);
});

test("[LEARNER] a repeated trigger shows the job already in flight", async ({ page }) => {
  // The reference Runtime is held off quizzes and plans (its key's scope, set by the admin), so
  // the first job of each stays in flight until the test lets it go.
  const adminApi = await signedInRequest(ADMIN);
  const release = await holdReferenceRuntime(adminApi, ["quiz_generation", "next_action_planning"]);
  try {
    await signIn(page, ADA);
    await page.goto("/");
    await page.getByLabel("What should the AI look at?").selectOption({ label: "Linear equations (whole material)" });
    await page.getByRole("button", { name: "Run all five" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Started 5 analyses" })).toBeVisible();
    await page.getByRole("button", { name: "Start Practice quiz" }).click();
    await expect(page.getByRole("status").filter({ hasText: "already running" })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Started practice quiz" })).toHaveCount(0);
    // The same request twice at once: one job, the second answer names it (created=false).
    const origin = new URL(test.info().project.use.baseURL!).origin;
    const body = {
      target: { type: "user", id: "user_ada" },
      jobTypes: ["next_action_planning"],
      params: { next_action_planning: { timeBudgetMinutes: 20 + (Date.now() % 500) } },
    };
    const twice = await Promise.all(
      [0, 1].map(() => page.request.post("/api/trpc/analyses.trigger", { headers: { origin }, data: body })),
    );
    const answers = await Promise.all(
      twice.map(async (r) => (await r.json()).result.data.items[0] as { created: boolean; job: { id: string } }),
    );
    expect(answers[0]!.job.id).toBe(answers[1]!.job.id);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
  } finally {
    await release();
    await adminApi.dispose();
  }
});

async function totalAnswers(page: import("@playwright/test").Page) {
  const values = await page
    .getByTestId("mastery-row")
    .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-attempts"))));
  return values.reduce((a, b) => a + b, 0);
}
