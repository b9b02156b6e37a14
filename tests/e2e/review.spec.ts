import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import pg from "pg";
import { expectAccessible } from "./a11y";
import { trpc } from "./admin-helpers";
import { focusedIsBody, isFocused, tabTo } from "./keys";
import { signIn } from "./learner-helpers";
import { createNewLearner, e2eDatabaseUrl } from "./new-learner";

/**
 * The study loop with the keyboard alone, in English and in 简体中文: a learner with a generated
 * deck and a quiz they got wrong opens the Review, shows each card's answer with Space and rates
 * it with 1–4. The first card is rated Again: it is not shown again at once, the other five come
 * first (the second one is shown on its front and rated while the first rating is still on its way
 * to the server), and it comes back in the same sitting once its one-minute learning step is over;
 * then nothing is due and the sitting ends. The test does not wait for that minute: it ends the step
 * by moving the card's due date back by the step in the database (the card's state, not a timer,
 * decides when it is shown). Focus stays on the card (or the message that replaces it), never on
 * <body>; every rating reaches the server's review log.
 */
test.describe.configure({ mode: "serial" });

const WORDS = {
  en: {
    heading: "Review",
    deckReady: "A new deck of 3 cards is ready (The cell). Add it to Review?",
    addDeck: "Add to Review",
    deckAdded: "3 cards added to Review.",
    secondDeck: /^(No new card|\d+ cards?) added to Review(, \d+ updated)?(, \d+ already there)?\.$/,
    start: /^Review 6 cards due now$/,
    today: "Now: 6 new · 0 learning · 0 to review",
    intervals: ["1 min", "6 min", "10 min", "8 days"],
    ratedNext: "Rated Again. Card 2 of 6.",
    progress: (n: number, total: number) => `${n} / ${total}`,
    suspend: "Suspend",
    suspended: "Card suspended.",
    show: "Show answer (Space)",
    finished: "Done: 6 cards reviewed. Nothing else is due now.",
    // Nothing now; cards on a learning step (minutes away) are due later today, labelled so.
    nothingDue: /^0 cards now · \d+ cards? later today$/,
    caughtUp: /^All caught up\. The next card is due/,
  },
  "zh-CN": {
    heading: "复习",
    deckReady: "新的闪卡组已生成（3 张）：细胞。加入复习吗？",
    addDeck: "加入复习",
    deckAdded: "已加入复习 3 张。",
    secondDeck: /^已加入复习 \d+ 张(，更新 \d+ 张)?(，\d+ 张已在复习中)?。$/,
    start: /^复习现在到期的 6 张$/,
    today: "现在：新卡 6 张 · 学习中 0 张 · 待复习 0 张",
    intervals: ["1分钟", "6分钟", "10分钟", "8天"],
    ratedNext: "已评为「重来」。第 2 张，共 6 张。",
    progress: (n: number, total: number) => `${n} / ${total} 张`,
    suspend: "暂停",
    suspended: "卡片已暂停。",
    show: "显示答案（空格）",
    finished: "完成：已复习 6 张。目前没有其他到期卡片。",
    nothingDue: /^现在 0 张 · 今天稍后 \d+ 张$/,
    caughtUp: /^都复习完了。下一张卡片.*到期。$/,
  },
} as const;

const MINUTE = 60_000;

/** Waits (through the learner's own job list) until the job has succeeded. */
async function succeeded(req: APIRequestContext, jobId: string) {
  await expect
    .poll(async () => (await trpc<{ job: { status: string } }>(req, "jobs.get", { jobId }, "query")).data?.job.status, {
      timeout: 90_000,
    })
    .toBe("succeeded");
}

/** A new learner with a material, a three-card deck on it (not yet in Review) and a three-question quiz answered all wrong. */
async function learnerWithDueCards(page: Page, locale: keyof typeof WORDS) {
  const who = await createNewLearner();
  await signIn(page, who);
  const req = page.request;
  await trpc(req, "account.setLocale", { locale }, "mutation");
  await trpc(req, "consent.set", { granted: true }, "mutation");
  const material = await trpc<{ id: string }>(
    req,
    "materials.create",
    {
      title: locale === "en" ? "The cell" : "细胞",
      text:
        locale === "en"
          ? "The cell membrane controls what enters the cell. Mitochondria release energy by respiration."
          : "细胞膜控制物质进出细胞。线粒体通过呼吸作用释放能量。",
      knowledgePoints: [
        { title: locale === "en" ? "Cell membrane" : "细胞膜", description: "" },
        { title: locale === "en" ? "Mitochondria" : "线粒体", description: "" },
      ],
    },
    "mutation",
  );
  expect(material.status).toBe(200);
  const target = { type: "material", id: material.data.id };
  const start = async (jobType: string) => {
    const res = await trpc<{ job: { id: string } }>(
      req,
      "jobs.create",
      { jobType, target, params: { count: 3 } },
      "mutation",
    );
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    return res.data.job.id;
  };
  const deck = await start("flashcard_generation");
  const quiz = await start("quiz_generation");
  await succeeded(req, deck);
  await succeeded(req, quiz);
  const answers = [0, 1, 2].map((index) => ({ index, response: "" }));
  const played = await trpc<{ score: number }>(req, "quiz.submit", { jobId: quiz, answers }, "mutation");
  expect(played.data.score).toBe(0);
  return { regenerate: () => start("flashcard_generation").then((id) => succeeded(req, id)) };
}

/**
 * The learning step of a card rated Again, as the server stored it (due minus the rating's time),
 * once the rating is committed; then the step is ended: the card's due date moves back by it.
 */
async function endLearningStep(cardId: string) {
  const db = new pg.Client({ connectionString: e2eDatabaseUrl() });
  await db.connect();
  try {
    const stored = async () =>
      (
        await db.query<{ reps: number; step: number }>(
          `SELECT reps, (extract(epoch FROM due - "lastReview") * 1000)::int AS step FROM "ReviewCard" WHERE id = $1`,
          [cardId],
        )
      ).rows[0];
    await expect.poll(async () => (await stored())?.reps).toBe(1);
    const { step } = (await stored())!;
    const moved = await db.query(`UPDATE "ReviewCard" SET due = "lastReview" WHERE id = $1 AND reps = 1`, [cardId]);
    expect(moved.rowCount).toBe(1);
    return step;
  } finally {
    await db.end();
  }
}

type ExportedCard = {
  id: string;
  kind: string;
  front: string;
  knowledgePointId: string | null;
  suspended: boolean;
  logs: { rating: string; reviewedAt: string; due: string }[];
};

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] keyboard only: review due cards and wrong questions, Again comes back after its step (${locale})`, async ({
    page,
  }) => {
    const w = WORDS[locale];
    const { regenerate } = await learnerWithDueCards(page, locale);
    await page.goto("/");
    const review = page.getByRole("region", { name: w.heading });
    await expect(review.getByTestId("review-due")).toBeVisible();
    const startButton = review.getByRole("button", { name: w.start });

    // The deck asks before it joins Review; once added, its cards are there at once (no reload, no minute's wait).
    await expect(review.getByTestId("pending-deck")).toHaveText(
      new RegExp(`^${w.deckReady.replace(/[()?]/g, "\\$&")}`),
    );
    await expect(startButton).toHaveCount(0);
    await expectAccessible(page, `review ${locale}: a deck asks to join`);
    await tabTo(page, review.getByRole("button", { name: w.addDeck }), { max: 200 });
    await page.keyboard.press("Enter");
    await expect(review.getByTestId("deck-answer")).toHaveText(w.deckAdded);
    await expect(review.getByTestId("review-today")).toHaveText(w.today);

    await tabTo(page, startButton, { max: 200 });
    await page.keyboard.press("Enter");
    const card = review.getByTestId("review-card");
    const back = review.getByTestId("review-back");
    const finished = review.getByTestId("review-finished");
    await expect(card).toBeFocused();
    await expectAccessible(page, `review ${locale}: a card's front`);

    // The first rating's request is held at the browser until the second card has been rated: a
    // slow save must neither show the next card with its answer nor drop the keys pressed on it.
    const ratingsSent: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    await page.route(
      (url) => url.pathname.split("/").pop()!.split(",").includes("review.rate"),
      async (route) => {
        ratingsSent.push(route.request().postData() ?? "");
        if (ratingsSent.length === 1) await firstHeld;
        await route.continue();
      },
    );

    // Six due cards, then the one rated Again once more: 1 (Again) first, then 2, the third suspended
    // from the card's actions (keyboard), then 3, 3, 3, and the first again: 3.
    const keys = ["1", "2", "suspend", "3", "3", "3", "3"];
    const progress = review.getByTestId("review-progress");
    const walked: string[] = [];
    for (const [n, key] of keys.entries()) {
      await expect(card).toHaveAttribute("data-card-id", n === 6 ? walked[0]! : /.+/);
      const id = (await card.getAttribute("data-card-id"))!;
      if (n < 6) expect(walked, "a card rated Again is not shown again before the others").not.toContain(id);
      walked.push(id);
      // Every card starts on its front, with its place in the sitting.
      await expect(review.getByRole("button", { name: w.show })).toBeVisible();
      await expect(back).toHaveCount(0);
      // Six today; once the first card's step is over (after the second rating) it is due again: seven.
      if (n < 2) await expect(progress).toHaveText(w.progress(n + 1, 6));
      if (n > 2) await expect(progress).toHaveText(w.progress(n + 1, 7));
      if (key === "suspend") {
        await tabTo(page, review.getByRole("button", { name: w.suspend, exact: true }), { max: 20 });
        await page.keyboard.press("Enter");
        await expect(review.getByRole("status").filter({ hasText: w.suspended })).toHaveCount(1);
        await expect(card).toBeFocused();
        continue;
      }
      await page.keyboard.press("Space");
      await expect(back).toBeVisible();
      expect(await isFocused(card)).toBe(true);
      if (n === 0) {
        // Each rating button says the interval it gives (ts-fsrs), as Anki does.
        for (const [i, r] of (["again", "hard", "good", "easy"] as const).entries())
          await expect(review.getByTestId(`interval-${r}`)).toHaveText(w.intervals[i]!);
        await expectAccessible(page, `review ${locale}: the answer shown`);
      }
      await page.keyboard.press(key);
      if (n === 0) await expect(review.getByRole("status").filter({ hasText: w.ratedNext })).toHaveCount(1);
      // The next card (or the wait for it, or the end) takes its place, and focus with it.
      await expect(card.or(finished)).not.toHaveAttribute("data-card-id", id);
      expect(await focusedIsBody(page)).toBe(false);
      if (n === 1) {
        await expect.poll(() => ratingsSent.length, "the second card is rated while the first is saved").toBe(2);
        releaseFirst();
        expect(await endLearningStep(walked[0]!), "Again puts a new card on a one-minute step").toBe(MINUTE);
      }
    }
    await expect(finished).toHaveText(w.finished);
    await expect(finished).toBeFocused();
    await expect(card).toHaveCount(0);
    await expect(review.getByTestId("review-due")).toHaveText(w.nothingDue);
    await expect(review.getByText(w.caughtUp)).toBeVisible();
    await expectAccessible(page, `review ${locale}: finished`);

    // Every rating reached the server's review log, in the order given.
    const exported = await page.request.get("/api/account/export");
    expect(exported.status()).toBe(200);
    const { reviewCards } = (await exported.json()) as { reviewCards: ExportedCard[] };
    expect(reviewCards.map((c) => c.kind).sort()).toEqual([
      "flashcard",
      "flashcard",
      "flashcard",
      "question",
      "question",
      "question",
    ]);
    expect(reviewCards.map((c) => c.id).sort()).toEqual(walked.slice(0, 6).sort());
    const ratings = (id: string) => reviewCards.find((c) => c.id === id)!.logs.map((l) => l.rating);
    expect(walked.slice(0, 6).map(ratings)).toEqual([["again", "good"], ["hard"], [], ["good"], ["good"], ["good"]]);
    expect(reviewCards.filter((c) => c.suspended).map((c) => c.id)).toEqual([walked[2]]);
    const again = reviewCards.find((c) => c.id === walked[0])!.logs[0]!;
    expect(Date.parse(again.due) - Date.parse(again.reviewedAt)).toBe(MINUTE);

    // A second deck on the same material ("Run all five" again): it asks again, and adding it
    // puts no front twice on one point in Review.
    await regenerate();
    await page.reload();
    await tabTo(page, review.getByRole("button", { name: w.addDeck }), { max: 200 });
    await page.keyboard.press("Enter");
    await expect(review.getByTestId("deck-answer")).toHaveText(w.secondDeck);
    const after = (await (await page.request.get("/api/account/export")).json()) as { reviewCards: ExportedCard[] };
    const keysOf = after.reviewCards.map((c) => `${c.knowledgePointId}|${c.front.trim().toLowerCase()}`);
    expect(new Set(keysOf).size, "no duplicate in Review").toBe(keysOf.length);
  });
}
