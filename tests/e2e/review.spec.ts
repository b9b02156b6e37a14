import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { trpc } from "./admin-helpers";
import { focusedIsBody, isFocused, tabTo } from "./keys";
import { signIn } from "./learner-helpers";
import { createNewLearner } from "./new-learner";

/**
 * The study loop with the keyboard alone, in English and in 简体中文: a learner with a generated
 * deck and a quiz they got wrong opens the Review, shows each card's answer with Space and rates
 * it with 1–4 until nothing is due (a card rated Again comes back a minute later and is simply
 * reviewed again if the walk is still going; nothing here waits on that minute). Focus stays on the card (or the message that replaces it),
 * never on <body>; every rating reaches the server's review log.
 */
test.describe.configure({ mode: "serial" });

const WORDS = {
  en: {
    heading: "Review",
    start: /^Review \d+ due cards$/,
    show: "Show answer (Space)",
    finished: /Done: \d+ cards reviewed/,
    question: "Question you got wrong",
  },
  "zh-CN": {
    heading: "复习",
    start: /^复习 \d+ 张到期卡片$/,
    show: "显示答案（空格）",
    finished: /完成：已复习 \d+ 张/,
    question: "答错的题",
  },
} as const;

/** Waits (through the learner's own job list) until the job has succeeded. */
async function succeeded(req: APIRequestContext, jobId: string) {
  await expect
    .poll(async () => (await trpc<{ job: { status: string } }>(req, "jobs.get", { jobId }, "query")).data?.job.status, {
      timeout: 90_000,
    })
    .toBe("succeeded");
}

/** A new learner with a material, a three-card deck on it and a three-question quiz answered all wrong. */
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
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] keyboard only: review due cards and wrong questions (${locale})`, async ({ page }) => {
    const w = WORDS[locale];
    await learnerWithDueCards(page, locale);
    await page.goto("/");
    const review = page.getByRole("region", { name: w.heading });
    await expect(review.getByTestId("review-due")).toBeVisible();
    const startButton = review.getByRole("button", { name: w.start });
    await expect(startButton).toBeVisible();

    await tabTo(page, startButton, { max: 200 });
    await page.keyboard.press("Enter");
    const card = review.getByTestId("review-card");
    await expect(card).toBeFocused();
    await expect(review.getByRole("button", { name: w.show })).toBeVisible();
    await expectAccessible(page, `review ${locale}: a card's front`);

    // Every due card: Space shows the back, a number key rates it; the first three use 1, 2 and 4.
    const keys = ["1", "2", "4"];
    const seenKinds = new Set<string>();
    for (let n = 0; n < 12 && (await card.count()) > 0; n++) {
      const id = await card.getAttribute("data-card-id");
      if ((await review.getByText(w.question).count()) > 0) seenKinds.add("question");
      else seenKinds.add("flashcard");
      await page.keyboard.press("Space");
      await expect(review.getByTestId("review-back")).toBeVisible();
      expect(await isFocused(card)).toBe(true);
      if (n === 0) await expectAccessible(page, `review ${locale}: the answer shown`);
      await page.keyboard.press(keys[n] ?? "3");
      // The next card (or the end) takes its place, and focus with it.
      await expect(card.or(review.getByTestId("review-finished"))).not.toHaveAttribute("data-card-id", id!);
      expect(await focusedIsBody(page)).toBe(false);
    }
    const finished = review.getByTestId("review-finished");
    await expect(finished).toHaveText(w.finished);
    await expect(finished).toBeFocused();
    expect([...seenKinds].sort()).toEqual(["flashcard", "question"]);

    // Every rating reached the server: each of the six cards has its log, with all four ratings used.
    const exported = await page.request.get("/api/account/export");
    expect(exported.status()).toBe(200);
    const { reviewCards } = (await exported.json()) as { reviewCards: { kind: string; logs: { rating: number }[] }[] };
    expect(reviewCards.map((c) => c.kind).sort()).toEqual([
      "flashcard",
      "flashcard",
      "flashcard",
      "question",
      "question",
      "question",
    ]);
    expect(reviewCards.every((c) => c.logs.length >= 1)).toBe(true);
    expect([...new Set(reviewCards.flatMap((c) => c.logs.map((l) => l.rating)))].sort()).toEqual([1, 2, 3, 4]);
    await expectAccessible(page, `review ${locale}: finished`);
  });
}
