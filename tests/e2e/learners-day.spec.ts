import { expect, test, type APIRequestContext } from "@playwright/test";
import pg from "pg";
import { closeDb } from "@/server/db";
import { composeDigest } from "@/server/notifications/digest";
import { trpc } from "./admin-helpers";
import { signIn } from "./learner-helpers";
import { createNewLearner, e2eAuthSecret, e2eDatabaseUrl } from "./new-learner";

/**
 * A learner's day, in English and in 简体中文, where every count agrees at every step: the page's
 * top line, Review (its labelled counts, what it holds now, its start button), the server's
 * top line and the digest the learner would get now all state the learner model's figures —
 * cards due now under today's limits, and cards due later in her day, labelled. A deck of eight
 * joins from the Review (the top line follows without a reload); then one card is suspended, one
 * buried, two fall due later in her day and the new-card limit is five: four now, one later today
 * (the limit leaves room for one of the two). Each card rated takes one off now at once; after
 * the last, Review offers nothing again and every view says none now, one later today.
 */
test.describe.configure({ mode: "serial" });

/** A zone where it is daytime now, so "later today" has room in it. */
const ZONE = ["Asia/Shanghai", "Europe/Berlin", "America/New_York", "Pacific/Auckland", "America/Los_Angeles"].find(
  (zone) => {
    const hour = Number(
      new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "numeric", hourCycle: "h23" }).format(),
    );
    return hour >= 6 && hour <= 20;
  },
)!;
test.use({ timezoneId: ZONE });

const cardsEn = (n: number) => (n === 1 ? "1 card" : `${n} cards`);
const WORDS = {
  en: {
    today: "Today",
    review: "Review",
    addDeck: "Add to Review",
    none: "Nothing to review today.",
    line: (now: number, later: number) => `To review today: ${cardsEn(now)} now · ${cardsEn(later)} later today.`,
    counts: (now: number, later: number) => `${cardsEn(now)} now · ${cardsEn(later)} later today`,
    start: (n: number) => `Review ${cardsEn(n)} due now`,
    anyStart: /^Review \d+ cards? due now$/,
    setAside: "Left out: 1 suspended · 1 buried.",
    mail: (now: number, later: number) => `To review today: ${cardsEn(now)} now · ${cardsEn(later)} later today.`,
    material: "Buoyancy",
    points: ["Buoyant force", "Floating and sinking"],
  },
  "zh-CN": {
    today: "今天",
    review: "复习",
    addDeck: "加入复习",
    none: "今天没有要复习的卡片。",
    line: (now: number, later: number) => `今天要复习：现在 ${now} 张 · 今天稍后 ${later} 张。`,
    counts: (now: number, later: number) => `现在 ${now} 张 · 今天稍后 ${later} 张`,
    start: (n: number) => `复习现在到期的 ${n} 张`,
    anyStart: /^复习现在到期的 \d+ 张$/,
    setAside: "不计入：已暂停 1 张 · 已搁置 1 张。",
    mail: (now: number, later: number) => `今天要复习：现在 ${now} 张 · 今天稍后 ${later} 张。`,
    material: "浮力",
    points: ["浮力的大小", "物体的浮沉条件"],
  },
} as const;

test.beforeAll(() => {
  // The digest is composed by the app's own code, on the e2e server's database.
  process.env.DATABASE_URL = e2eDatabaseUrl();
  process.env.BETTER_AUTH_SECRET = e2eAuthSecret();
  process.env.BETTER_AUTH_URL = new URL(test.info().project.use.baseURL!).origin;
});
test.afterAll(() => closeDb());

async function sql(text: string, values: unknown[]) {
  const db = new pg.Client({ connectionString: e2eDatabaseUrl() });
  await db.connect();
  try {
    return await db.query(text, values);
  } finally {
    await db.end();
  }
}

async function call<T>(req: APIRequestContext, path: string, input: unknown, kind: "query" | "mutation") {
  const res = await trpc<T>(req, path, input, kind);
  expect(res.status, `${path}: ${JSON.stringify(res.error)}`).toBe(200);
  return res.data;
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] a learner's day: the page, Review, the top line and the digest count the same cards (${locale})`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const w = WORDS[locale];
    const who = await createNewLearner();
    await signIn(page, who);
    const req = page.request;
    await call(req, "account.setLocale", { locale }, "mutation");
    await call(req, "consent.set", { granted: true }, "mutation");
    await sql(`UPDATE "User" SET "timeZone" = $2 WHERE id = $1`, [who.id, ZONE]);
    const material = await call<{ id: string }>(
      req,
      "materials.create",
      {
        title: w.material,
        text: `${w.material}: ${w.points.join("; ")}.`,
        knowledgePoints: w.points.map((title) => ({ title, description: "" })),
      },
      "mutation",
    );
    const deck = await call<{ job: { id: string } }>(
      req,
      "jobs.create",
      { jobType: "flashcard_generation", target: { type: "material", id: material.id }, params: { count: 8 } },
      "mutation",
    );
    await expect
      .poll(
        async () =>
          (await trpc<{ job: { status: string } }>(req, "jobs.get", { jobId: deck.job.id }, "query")).data?.job.status,
        {
          timeout: 90_000,
        },
      )
      .toBe("succeeded");

    await page.goto("/");
    const today = page.getByRole("region", { name: w.today, exact: true });
    const line = today.getByTestId("today-due");
    const review = page.getByRole("region", { name: w.review, exact: true });
    const counts = review.getByTestId("review-due");
    const breakdown = review.getByTestId("review-today");

    /** Every view at once: the page's top line, Review's counts and start button, the server's top line, the digest. */
    const agree = async (now: number, later: number) => {
      await expect(line).toHaveText(now + later ? w.line(now, later) : w.none);
      await expect(line).toHaveAttribute("data-now", String(now));
      await expect(line).toHaveAttribute("data-later", String(later));
      await expect(counts).toHaveText(w.counts(now, later));
      // The breakdown (new · learning · to review) adds up to the same "now".
      const parts = ((await breakdown.textContent()) ?? "").match(/\d+/g)!.map(Number);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(now);
      // One start button, offering exactly the cards due now; none when none is.
      await expect(review.getByRole("button", { name: w.anyStart })).toHaveCount(now ? 1 : 0);
      if (now) await expect(review.getByRole("button", { name: w.start(now), exact: true })).toBeVisible();
      const server = await call<{ now: number; laterToday: number }>(req, "review.today", { timeZone: ZONE }, "query");
      expect(server).toMatchObject({ now, laterToday: later });
      const queue = await call<{ today: { total: number }; laterToday: number }>(
        req,
        "review.queue",
        { timeZone: ZONE },
        "query",
      );
      expect([queue.today.total, queue.laterToday]).toEqual([now, later]);
      const digest = await composeDigest({ id: who.id, email: who.email, name: "L", locale, timeZone: ZONE });
      expect(digest.message.text).toContain(now + later ? w.mail(now, later) : w.none);
    };

    // Nothing in Review yet; the deck waits for her answer. Added from the Review, the top line follows at once.
    await agree(0, 0);
    await review.getByRole("button", { name: w.addDeck, exact: true }).click();
    await agree(8, 0);

    // One card suspended, one buried, two due later in her day; five new cards a day.
    const { cards } = await call<{ cards: { id: string }[] }>(req, "review.queue", { timeZone: ZONE }, "query");
    expect(cards).toHaveLength(8);
    await call(req, "review.suspend", { cardId: cards[0]!.id, suspended: true }, "mutation");
    await call(req, "review.bury", { cardId: cards[1]!.id, buried: true, timeZone: ZONE }, "mutation");
    const moved = await sql(
      `UPDATE "ReviewCard" SET due = (now() AT TIME ZONE 'UTC') +
         ((((date_trunc('day', now() AT TIME ZONE $2) + interval '1 day') AT TIME ZONE $2) - now()) / 2)
       WHERE id = ANY($1)`,
      [[cards[2]!.id, cards[3]!.id], ZONE],
    );
    expect(moved.rowCount).toBe(2);
    await call(req, "review.setLimits", { newPerDay: 5, reviewsPerDay: 200 }, "mutation");
    await page.reload();
    await agree(4, 1);
    await expect(review.getByTestId("review-set-aside")).toHaveText(w.setAside);

    // Each card rated Easy (due in days): one fewer now, everywhere, at once; the limit keeps one later today.
    await review.getByRole("button", { name: w.start(4), exact: true }).click();
    const card = review.getByTestId("review-card");
    const done = review.getByTestId("review-finished");
    for (let n = 1; n <= 4; n++) {
      await expect(card).toBeFocused();
      const id = (await card.getAttribute("data-card-id"))!;
      await page.keyboard.press("Space");
      await expect(review.getByTestId("review-back")).toBeVisible();
      await page.keyboard.press("4");
      await expect(card.or(done)).not.toHaveAttribute("data-card-id", id);
      await expect(line).toHaveAttribute("data-now", String(4 - n));
    }
    await expect(done).toBeVisible();
    // Read after the ratings were saved: nothing is offered again, and every view agrees.
    await agree(0, 1);
    await page.reload();
    await agree(0, 1);
  });
}
