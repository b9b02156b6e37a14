import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import pg from "pg";
import { trpc } from "./admin-helpers";
import { rowsOf, signIn } from "./learner-helpers";
import { createNewLearner, e2eDatabaseUrl } from "./new-learner";

/**
 * One picture on the learner page, in English and in 简体中文: a learner who answered every quiz
 * question wrong, then reviewed one topic's cards well (Easy) and forgot the other's (Again).
 * The mastery bars, the mastery chart and the analysis show the same number for each topic, and
 * it counts the reviews (a topic with only wrong answers but good reviews is above 0 %); a topic
 * is a strength or a risk, never both, and the forgotten one is a risk; the plan calls no card due
 * that the Review view does not show as due.
 */
test.describe.configure({ mode: "serial" });

const WORDS = {
  en: {
    titles: ["1. Cell membrane", "2. Mitochondria"],
    review: "Review",
    nothingDue: /^0 cards now · 0 cards later today$/,
    due: /due card/i,
  },
  "zh-CN": {
    titles: ["一、细胞膜", "二、线粒体"],
    review: "复习",
    nothingDue: /^现在 0 张 · 今天稍后 0 张$/,
    due: /张到期卡片|张卡片到期/,
  },
} as const;

type Job = { id: string; status: string };

async function start(req: APIRequestContext, jobType: string, target: { type: string; id: string }, params = {}) {
  const res = await trpc<{ job: Job }>(req, "jobs.create", { jobType, target, params }, "mutation");
  expect(res.status, JSON.stringify(res.error)).toBe(200);
  const jobId = res.data.job.id;
  await expect
    .poll(async () => (await trpc<{ job: Job }>(req, "jobs.get", { jobId }, "query")).data?.job.status, {
      timeout: 90_000,
    })
    .toBe("succeeded");
  return jobId;
}

/** Moves these cards' next due date a day on: "forgotten, back later", held by the data, not by a timer. */
async function dueTomorrow(cardIds: string[]) {
  const db = new pg.Client({ connectionString: e2eDatabaseUrl() });
  await db.connect();
  try {
    await db.query(`UPDATE "ReviewCard" SET due = now() + interval '1 day' WHERE id = ANY($1::text[])`, [cardIds]);
  } finally {
    await db.end();
  }
}

async function learner(page: Page, locale: keyof typeof WORDS) {
  const w = WORDS[locale];
  const who = await createNewLearner();
  await signIn(page, who);
  const req = page.request;
  await trpc(req, "account.setLocale", { locale }, "mutation");
  await trpc(req, "consent.set", { granted: true }, "mutation");
  const material = await trpc<{ id: string; knowledgePoints?: { id: string; title: string }[] }>(
    req,
    "materials.create",
    {
      title: locale === "en" ? "The cell" : "细胞",
      text:
        locale === "en"
          ? "The cell membrane controls what enters the cell. Mitochondria release energy by respiration."
          : "细胞膜控制物质进出细胞。线粒体通过呼吸作用释放能量。",
      knowledgePoints: w.titles.map((title) => ({ title, description: "" })),
    },
    "mutation",
  );
  expect(material.status).toBe(200);
  const target = { type: "material", id: material.data.id };
  await start(req, "flashcard_generation", target, { count: 4 });
  const quiz = await start(req, "quiz_generation", target, { count: 2 });
  const answers = [0, 1].map((index) => ({ index, response: "" }));
  const played = await trpc<{ score: number }>(req, "quiz.submit", { jobId: quiz, answers }, "mutation");
  expect(played.data.score).toBe(0);

  // Every card of the first topic rated Easy, every other card Again (then back tomorrow).
  const queue = await trpc<{ cards: { id: string; reps: number; knowledgePointTitle: string | null }[] }>(
    req,
    "review.queue",
    undefined,
    "query",
  );
  const forgotten: string[] = [];
  for (const c of queue.data.cards) {
    const rating = c.knowledgePointTitle === w.titles[0] ? "easy" : "again";
    if (rating === "again") forgotten.push(c.id);
    const rated = await trpc(req, "review.rate", { cardId: c.id, rating, reps: c.reps }, "mutation");
    expect(rated.status, JSON.stringify(rated.error)).toBe(200);
  }
  expect(forgotten.length).toBeGreaterThan(0);
  expect(forgotten.length).toBeLessThan(queue.data.cards.length);
  await dueTomorrow(forgotten);

  const me = await trpc<{ user: { id: string } }>(req, "me.get", undefined, "query");
  const user = { type: "user", id: me.data.user.id };
  const state = await start(req, "learning_state_analysis", user);
  await start(req, "weak_point_analysis", user);
  await start(req, "next_action_planning", user, { timeBudgetMinutes: 60 });
  const out = (await trpc<{ result: { output: Record<string, unknown> } }>(req, "jobs.get", { jobId: state }, "query"))
    .data.result.output as {
    knowledgePoints: { knowledgePointId: string; title: string; mastery: number; attempts: number }[];
  };
  return out;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] bars, chart, strengths, risks, weak points, plan and Review tell one story (${locale})`, async ({
    page,
  }) => {
    const w = WORDS[locale];
    const analysis = await learner(page, locale);
    const [good, forgotten] = w.titles.map((t) => analysis.knowledgePoints.find((k) => k.title === t)!) as [
      (typeof analysis.knowledgePoints)[number],
      (typeof analysis.knowledgePoints)[number],
    ];
    expect(good && forgotten).toBeTruthy();

    await page.goto("/");
    await rowsOf(page, "learning_state_analysis").first().getByRole("button").first().click();
    const rows = page.getByTestId("mastery-row");
    await expect(rows).toHaveCount(analysis.knowledgePoints.length);
    for (const k of analysis.knowledgePoints) {
      // The bar shows the analysis's number, and so does the chart's latest point for the topic.
      await expect(page.locator(`[data-testid=mastery-row][data-kp="${k.knowledgePointId}"]`)).toHaveAttribute(
        "data-mastery",
        pct(k.mastery),
      );
      await expect(page.locator(`[data-testid=mastery-topic][data-kp="${k.knowledgePointId}"]`)).toHaveAttribute(
        "data-mastery",
        pct(k.mastery),
      );
    }
    // Every answer was wrong; the good reviews count: the first topic's mastery is above 0 %.
    expect(good.mastery).toBeGreaterThan(0);
    await expect(page.locator(`[data-testid=mastery-row][data-kp="${good.knowledgePointId}"]`)).not.toHaveAttribute(
      "data-mastery",
      "0%",
    );

    // A topic is a strength or a risk, never both; the forgotten topic is a risk.
    const ids = async (list: string) =>
      page
        .getByTestId(list)
        .locator("li[data-kp]")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-kp")));
    const strengths = await ids("strengths");
    const risks = await ids("risks");
    expect(strengths.filter((id) => risks.includes(id))).toEqual([]);
    expect(risks).toContain(forgotten.knowledgePointId);
    expect(strengths).not.toContain(forgotten.knowledgePointId);
    await expect(page.getByTestId("risks")).toContainText(forgotten.title);

    // Weak points: the forgotten topic is there.
    await rowsOf(page, "weak_point_analysis").first().getByRole("button").first().click();
    await expect(page.getByTestId("weak-point").filter({ hasText: forgotten.title })).toHaveCount(1);

    // The Review view shows nothing due now, and the plan calls no card due; it names a topic once per kind of step.
    const review = page.getByRole("region", { name: w.review });
    await expect(review.getByTestId("review-due")).toHaveText(w.nothingDue);
    await rowsOf(page, "next_action_planning").first().getByRole("button").first().click();
    const actions = page.getByTestId("next-action");
    await expect(actions.first()).toBeVisible();
    for (const text of await actions.allTextContents()) expect(text).not.toMatch(w.due);
  });
}
