import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { MAX_CARD_REVIEWS } from "@/server/review/ingest";
import { eventually } from "../helpers/eventually";
import { uid } from "../helpers/factories";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * Review ingestion's work is bounded whatever was sent before: a card's log is capped, a call
 * rewrites only the log rows from its own reviews on, a key's calls at once are capped (429), and
 * two calls with the same items in opposite orders take their locks alike (no deadlock).
 */
let key: string;
let api: ReturnType<typeof platform>;
beforeAll(async () => {
  key = await serviceKey();
  api = platform(key);
});

const review = (id: string, card: string, at: Date, rating = "good") => ({
  externalId: id,
  cardExternalId: card,
  front: `Front of ${card}`,
  back: `Back of ${card}`,
  rating,
  reviewedAt: at.toISOString(),
});

async function learner() {
  const ext = uid("ext");
  expect((await api.putLearner(ext, { name: "R" })).status).toBeLessThan(300);
  await api.putMaterial(ext, "m", {
    title: "Cells",
    text: "Cells are the unit of life.",
    knowledgePoints: [{ externalId: "k1", title: "Cell" }],
  });
  const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
  const kp = await getDb().knowledgePoint.findFirstOrThrow({ where: { userId: user.id } });
  return { ext, userId: user.id, kpId: kp.id };
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000);

/** A client of its own, outside the app's pools: it holds locks the calls under test wait on. */
async function holder() {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  return client;
}

/** Sessions of this database waiting on a lock now, in a statement on `table`. */
async function waitingOnLocks(table: string) {
  const rows = await getDb().$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ${`%INSERT INTO "${table}"%`}`;
  return rows[0]!.n;
}

describe("review ingestion's bounds", () => {
  it(`a card holds at most ${MAX_CARD_REVIEWS} reviews: one more is 409 CARD_LOG_FULL and stores nothing`, async () => {
    const { ext, userId } = await learner();
    const full = Array.from({ length: MAX_CARD_REVIEWS }, (_, i) => review(`r${i}`, "c", day(i)));
    expect((await api.activity(ext, { reviews: full })).status).toBe(200);
    const over = await api.activity(ext, {
      reviews: [review("other", "d", day(1)), review("one-more", "c", day(MAX_CARD_REVIEWS + 1))],
    });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("CARD_LOG_FULL");
    expect(over.body.error.details[0].path).toBe("reviews.1.cardExternalId");
    expect(await getDb().reviewLog.count({ where: { userId } })).toBe(MAX_CARD_REVIEWS);
    expect(await getDb().reviewCard.count({ where: { userId, externalId: "d" } })).toBe(0);
  });

  it("a new review rewrites only the log rows from its own time on, not the card's whole log", async () => {
    const { ext, userId } = await learner();
    const first = Array.from({ length: 40 }, (_, i) => review(`r${i}`, "c", day(i)));
    expect((await api.activity(ext, { reviews: first })).status).toBe(200);
    const versions = async () =>
      getDb().$queryRaw<{ externalId: string; v: string }[]>`
        SELECT "externalId", xmin::text AS v FROM "ReviewLog" WHERE "userId" = ${userId} ORDER BY "reviewedAt"`;
    const before = await versions();
    // One late review between the 30th and the 31st: rows before it are left as they were.
    expect(
      (await api.activity(ext, { reviews: [review("late", "c", new Date(day(30).getTime() - 60_000))] })).status,
    ).toBe(200);
    const after = await versions();
    const unchanged = after.filter((row) => before.find((b) => b.externalId === row.externalId)?.v === row.v);
    expect(unchanged.map((r) => r.externalId)).toEqual(first.slice(0, 30).map((r) => r.externalId));
  });

  it("a key's activity calls at once are capped: one more is 429 with Retry-After; the held ones finish", async () => {
    const a = await learner();
    const b = await learner();
    const c = await learner();
    for (const l of [a, b])
      expect((await api.activity(l.ext, { reviews: [review("seed", "c", day(0))] })).status).toBe(200);
    // Hold both learners' card rows: a review of them waits on the lock, holding its slot.
    const lock = await holder();
    await lock.query("BEGIN");
    await lock.query(`SELECT 1 FROM "ReviewCard" WHERE "userId" = ANY($1) FOR UPDATE`, [[a.userId, b.userId]]);
    const held = [a, b].map((l) => api.activity(l.ext, { reviews: [review("next", "c", day(1))] }));
    try {
      await eventually("both calls wait on the card locks", async () => (await waitingOnLocks("ReviewCard")) === 2);
      const over = await api.activity(c.ext, { reviews: [review("x", "c", day(1))] });
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe("RATE_LIMITED");
      expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
      // Another key is not held back by this one's calls.
      const other = platform(await serviceKey());
      const d = uid("ext");
      expect((await other.putLearner(d, { name: "D" })).status).toBeLessThan(300);
      expect((await other.activity(d, { reviews: [review("x", "c", day(1))] })).status).toBe(200);
    } finally {
      await lock.query("ROLLBACK");
      await lock.end();
    }
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await api.activity(c.ext, { reviews: [review("x", "c", day(1))] })).status).toBe(200);
  });

  it("two calls with the same items in opposite orders both answer 200, each item stored once", async () => {
    const { ext, userId, kpId } = await learner();
    const attempt = (id: string) => ({
      externalId: id,
      knowledgePointExternalId: "k1",
      correct: true,
      answeredAt: day(1).toISOString(),
    });
    // A third transaction holds the middle item (an uncommitted row): taken in the order sent, each
    // call would store its first item and wait there, holding what the other needs next.
    const lock = await holder();
    await lock.query("BEGIN");
    await lock.query(
      `INSERT INTO "QuizAttempt" (id, "userId", "externalId", "knowledgePointId", question, correct, "answeredAt")
       VALUES (gen_random_uuid()::text, $1, 'qa-3', $2, '', true, now())`,
      [userId, kpId],
    );
    const forward = api.activity(ext, { quizAttempts: ["qa-1", "qa-3", "qa-2"].map(attempt) });
    const backward = api.activity(ext, { quizAttempts: ["qa-2", "qa-3", "qa-1"].map(attempt) });
    await eventually("both calls wait on a lock", async () => (await waitingOnLocks("QuizAttempt")) === 2);
    await lock.query("ROLLBACK");
    await lock.end();
    const answers = await Promise.all([forward, backward]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers.map((r) => r.body.quizAttempts.new).sort((x, y) => x - y)).toEqual([0, 3]);
    expect(await getDb().quizAttempt.count({ where: { userId } })).toBe(
      3 + (await getDb().quizAttempt.count({ where: { userId, externalId: null } })),
    );
  });
});
