import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { trpc } from "./admin-helpers";
import { signIn } from "./learner-helpers";
import { createNewLearner } from "./new-learner";

/**
 * The learner page's top line, in English and in 简体中文: a learner with a material and nothing to
 * review is told so; once a quiz answered all wrong has put three question cards in Review and a
 * plan has run, the line counts three cards due now (and none later today) and shows the plan's
 * first step by priority; its link
 * opens the Review over all the learner's cards (whatever scope the Review was left on) with focus
 * on its heading. Each card reviewed (rated Easy: due again in days, not today) takes one off the
 * line at once, and after the last the line says nothing is due, also when the learner comes back.
 */
test.describe.configure({ mode: "serial" });

const WORDS = {
  en: {
    today: "Today",
    review: "Review",
    due: (n: number) =>
      n === 0
        ? "Nothing to review today."
        : `To review today: ${n === 1 ? "1 card" : `${n} cards`} now · 0 cards later today.`,
    open: "Open Review",
    firstStep: (title: string, minutes: number) => `Your plan's first step: ${title} (${minutes} min).`,
    start: /^Review 3 cards due now$/,
    nothingDue: /^0 cards now · 0 cards later today$/,
    progress: (n: number, total: number) => `${n} / ${total}`,
    finished: "Done: 3 cards reviewed. Nothing else is due now.",
    material: "The cell",
    other: "Plant tissues",
  },
  "zh-CN": {
    today: "今天",
    review: "复习",
    due: (n: number) => (n === 0 ? "今天没有要复习的卡片。" : `今天要复习：现在 ${n} 张 · 今天稍后 0 张。`),
    open: "去复习",
    firstStep: (title: string, minutes: number) => `学习计划的第一步：${title}（${minutes} 分钟）。`,
    start: /^复习现在到期的 3 张$/,
    nothingDue: /^现在 0 张 · 今天稍后 0 张$/,
    progress: (n: number, total: number) => `${n} / ${total} 张`,
    finished: "完成：已复习 3 张。目前没有其他到期卡片。",
    material: "细胞",
    other: "植物组织",
  },
} as const;

type Plan = { actions: { title: string; estimatedMinutes: number; priority: number }[] };

/** Starts a job on the target and waits (through the learner's own job view) for its result. */
async function finished<T>(req: APIRequestContext, jobType: string, target: { type: string; id: string }) {
  const created = await trpc<{ job: { id: string } }>(
    req,
    "jobs.create",
    { jobType, target, params: jobType === "quiz_generation" ? { count: 3 } : {} },
    "mutation",
  );
  expect(created.status, JSON.stringify(created.error)).toBe(200);
  const jobId = created.data.job.id;
  let output: T | undefined;
  await expect
    .poll(
      async () => {
        const got = await trpc<{ job: { status: string }; result: { output: T } | null }>(
          req,
          "jobs.get",
          { jobId },
          "query",
        );
        output = got.data?.result?.output;
        return got.data?.job.status;
      },
      { timeout: 90_000 },
    )
    .toBe("succeeded");
  return { jobId, output: output! };
}

async function material(req: APIRequestContext, title: string, points: string[]) {
  const res = await trpc<{ id: string }>(
    req,
    "materials.create",
    {
      title,
      text: `${title}: ${points.join(", ")}.`,
      knowledgePoints: points.map((t) => ({ title: t, description: "" })),
    },
    "mutation",
  );
  expect(res.status, JSON.stringify(res.error)).toBe(200);
  return res.data.id;
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screenshots/today-${name}.png`, fullPage: true });
  await expectAccessible(page, `today line ${name}`);
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] the today line counts today's due cards, shows the plan's first step and opens Review (${locale})`, async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const w = WORDS[locale];
    const who = await createNewLearner();
    await signIn(page, who);
    const req = page.request;
    expect((await trpc(req, "account.setLocale", { locale }, "mutation")).status).toBe(200);
    expect((await trpc(req, "consent.set", { granted: true }, "mutation")).status).toBe(200);
    const cell =
      locale === "en"
        ? await material(req, w.material, ["Cell membrane", "Mitochondria"])
        : await material(req, w.material, ["细胞膜", "线粒体"]);
    const other = await material(req, w.other, locale === "en" ? ["Xylem"] : ["木质部"]);

    // A material and nothing in Review: the line says nothing is due, with no link and no plan step.
    await page.goto("/");
    const today = page.getByRole("region", { name: w.today, exact: true });
    const due = today.getByTestId("today-due");
    const open = today.getByRole("link", { name: w.open });
    const step = today.getByTestId("today-first-step");
    await expect(due).toHaveText(w.due(0));
    await expect(open).toHaveCount(0);
    await expect(step).toHaveCount(0);
    await shot(page, `${locale}-nothing-due`);

    // A quiz answered all wrong puts its three questions in Review (due now); a plan gives a first step.
    const target = { type: "material", id: cell };
    const quiz = await finished(req, "quiz_generation", target);
    const plan = await finished<Plan>(req, "next_action_planning", target);
    const answers = [0, 1, 2].map((index) => ({ index, response: "" }));
    const played = await trpc<{ score: number }>(req, "quiz.submit", { jobId: quiz.jobId, answers }, "mutation");
    expect(played.status, JSON.stringify(played.error)).toBe(200);
    expect(played.data.score).toBe(0);
    // The plan's first step as the plan shows it: by priority, then in the order stored.
    const first = [...plan.output.actions].sort((a, b) => a.priority - b.priority)[0]!;
    expect(first.title.length).toBeGreaterThan(0);

    await page.reload();
    await expect(due).toHaveText(w.due(3));
    await expect(step).toHaveText(w.firstStep(first.title, first.estimatedMinutes));
    await expect(open).toBeVisible();
    await shot(page, `${locale}-three-due`);

    // The Review left on another material (nothing due there); the line's link opens it over all cards.
    const review = page.getByRole("region", { name: w.review, exact: true });
    const scope = review.getByTestId("review-scope");
    await scope.selectOption(`m:${other}`);
    await expect(review.getByTestId("review-due")).toHaveText(w.nothingDue);
    const start = review.getByRole("button", { name: w.start });
    await expect(start).toHaveCount(0);
    await open.click();
    await expect(page).toHaveURL(/#review$/);
    await expect(scope).toHaveValue("all");
    await expect(review.getByRole("heading", { name: w.review, exact: true })).toBeFocused();
    await expect(start).toBeVisible();

    // Each card rated Easy (due in days) leaves today's count at once, on the same page.
    await start.click();
    const card = review.getByTestId("review-card");
    const back = review.getByTestId("review-back");
    const progress = review.getByTestId("review-progress");
    const done = review.getByTestId("review-finished");
    for (let n = 0; n < 3; n++) {
      await expect(card).toBeFocused();
      await expect(progress).toHaveText(w.progress(n + 1, 3));
      const id = (await card.getAttribute("data-card-id"))!;
      await page.keyboard.press("Space");
      await expect(back).toBeVisible();
      await page.keyboard.press("4");
      await expect(card.or(done)).not.toHaveAttribute("data-card-id", id);
      await expect(due).toHaveText(w.due(2 - n));
    }
    await expect(done).toHaveText(w.finished);
    await expect(open).toHaveCount(0);
    await expect(step).toHaveText(w.firstStep(first.title, first.estimatedMinutes));

    // Coming back: still nothing due today (the server's count, not the page's memory).
    await page.goto("/account");
    await page.goto("/");
    await expect(due).toHaveText(w.due(0));
    await expect(open).toHaveCount(0);
    await expect(step).toHaveText(w.firstStep(first.title, first.estimatedMinutes));
    const counted = await trpc<{ now: number; laterToday: number }>(req, "review.today", { timeZone: "UTC" }, "query");
    expect(counted.data).toMatchObject({ now: 0, laterToday: 0 });
    await shot(page, `${locale}-all-reviewed`);
  });
}
