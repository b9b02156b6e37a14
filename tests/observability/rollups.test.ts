import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceRollups, jobCounts } from "@/server/observability/rollups";
import { getOverview } from "@/server/admin/overview";
import { histBucket, quantile } from "@/server/observability/histogram";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { succeededJob } from "../helpers/finished-jobs";

/**
 * The console rollups against the raw tables they summarise: after any interleaving of job work
 * and folds (including an event that commits after later ones, and folds racing each other) the
 * counters equal a live count and the time series equal a count of the events.
 */
const db = () => getDb();
let learner: Learner;

/** Jobs by status and type counted from the table: what the counters must equal. */
async function liveCounts() {
  const rows = await db().$queryRaw<{ status: string; jobType: string; n: number }[]>`
    SELECT status::text AS status, "jobType"::text AS "jobType", count(*)::int AS n FROM "AiRuntimeJob" GROUP BY 1, 2`;
  return norm(rows);
}
const norm = (rows: { status: string; jobType: string; n: number }[]) =>
  Object.fromEntries(
    rows
      .filter((r) => r.n)
      .map((r): [string, number] => [`${r.status}/${r.jobType}`, r.n])
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/** Folds until every committed event is in the rollups (a fold waits for older transactions to end). */
async function settle() {
  const [row] = await db().$queryRaw<{ max: bigint | null }[]>`SELECT max(id) AS max FROM "JobEvent"`;
  const max = row?.max ?? 0n;
  // Waits until the fold has caught up (a transaction still open holds it back); the bound only fails a hang.
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const r = await advanceRollups();
    if (r.ran && BigInt(r.eventId) >= max) return r;
    await new Promise((res) => setImmediate(res));
  }
  throw new Error("rollups never caught up");
}

async function someWork(n: number) {
  const rt = runtime(await runtimeKey(), uid("rt"));
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) await succeededJob(learner, "quiz_generation", { count: 2 });
    else if (i % 3 === 1) {
      const job = await createTestJob(learner, "flashcard_generation", { params: { count: 2 } });
      await rt.lock(job.id);
      await rt.fail(job.id, 1, "INVALID_SCHEMA", "bad");
    } else await createTestJob(learner);
  }
}

beforeAll(async () => {
  learner = await createLearner();
});

describe("histogram", () => {
  it("puts a time in the bucket whose bounds hold it, in JS and SQL alike, and reads percentiles back within a bucket", async () => {
    for (const s of [0, 0.005, 0.01, 0.0125, 0.5, 3, 59.9, 3600, 1e9]) {
      const [row] = await db().$queryRaw<
        { idx: number }[]
      >`SELECT least(79, greatest(0, ceil(ln(greatest(${s}::float8, 1e-9) / 0.01) / ln(1.25))))::int AS idx`;
      expect(row!.idx).toBe(histBucket(s));
    }
    const values = Array.from({ length: 1000 }, (_, i) => 0.05 + i * 0.01);
    const h = new Map<number, number>();
    for (const v of values) h.set(histBucket(v), (h.get(histBucket(v)) ?? 0) + 1);
    const p95 = quantile(h, 0.95)!;
    expect(Math.abs(p95 - values[949]!) / values[949]!).toBeLessThan(0.25);
    expect(quantile(new Map(), 0.5)).toBeNull();
  });
});

describe("rollups", () => {
  it("before the first recount, count the table itself", async () => {
    await db().$executeRaw`UPDATE "ConsoleRollupState" SET "countedAt" = NULL`;
    await someWork(3);
    const live = await liveCounts();
    expect(Object.keys(live).length).toBeGreaterThan(0);
    expect(norm(await jobCounts())).toEqual(live);
  });

  it("match a live count of jobs and of events after folding, and include events past the watermark without a fold", async () => {
    await someWork(9);
    await settle();
    expect(norm(await jobCounts())).toEqual(await liveCounts());
    // New work after the fold: read live from the events past the watermark.
    await someWork(3);
    expect(norm(await jobCounts())).toEqual(await liveCounts());
    const o = await getOverview("1h");
    const [raw] = await db().$queryRaw<{ s: number; f: number }[]>`
      SELECT count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS s, count(*) FILTER (WHERE "toStatus" = 'failed')::int AS f FROM "JobEvent"`;
    expect({ s: o.totals.succeeded, f: o.totals.failed }).toEqual({ s: raw!.s, f: raw!.f });
    expect(o.buckets.reduce((a, b) => a + b.succeeded, 0)).toBe(raw!.s);
    expect(o.totals.runP50).not.toBeNull();
    expect(o.totals.waitP95).not.toBeNull();
    // The same figures once folded: nothing counted twice or lost at the watermark.
    await settle();
    const folded = await getOverview("1h");
    expect(folded.totals).toEqual(o.totals);
    expect((await getOverview("7d")).totals.succeeded).toBe(raw!.s);
  });

  it("never folds past an event whose transaction is still open, and counts it once it commits", async () => {
    await settle();
    const job = await createTestJob(learner, "weak_point_analysis");
    // A transaction takes an event id, then stays open while later events commit.
    const slow = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await slow.connect();
    try {
      await slow.query("BEGIN");
      await slow.query(`UPDATE "AiRuntimeJob" SET status = 'cancelled' WHERE id = $1`, [job.id]);
      const { rows } = await slow.query(
        `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "attemptNo") VALUES ($1, 'pending', 'cancelled', 'admin', 0) RETURNING id`,
        [job.id],
      );
      const openId = BigInt(rows[0].id);
      await someWork(3);
      for (let i = 0; i < 3; i++) {
        const r = await advanceRollups();
        expect(BigInt(r.eventId)).toBeLessThan(openId);
      }
      await slow.query("COMMIT");
    } finally {
      await slow.end();
    }
    await settle();
    expect(norm(await jobCounts())).toEqual(await liveCounts());
  });

  it("folds racing each other and job work racing the folds still add every event exactly once", async () => {
    const work = someWork(12);
    const folds = Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let i = 0; i < 5; i++) await advanceRollups();
      }),
    );
    const results = await Promise.all([work, folds]);
    expect(results).toHaveLength(2);
    await settle();
    expect(norm(await jobCounts())).toEqual(await liveCounts());
    const [raw] = await db().$queryRaw<{ s: number; waits: number }[]>`
      SELECT count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS s, count(*) FILTER (WHERE "toStatus" = 'locked' AND "attemptNo" = 1)::int AS waits FROM "JobEvent"`;
    const [rolled] = await db().$queryRaw<{ s: number; waits: number }[]>`
      SELECT coalesce(sum(n) FILTER (WHERE kind = 'succeeded'), 0)::int AS s, coalesce(sum(n) FILTER (WHERE kind = 'wait'), 0)::int AS waits FROM "JobTimeRollup" WHERE width = 1`;
    expect(rolled).toEqual(raw);
  });

  it("every width holds the same facts: six-hour rows are the half-hour and minute rows regrouped, and the migration's backfill rebuilds them exactly", async () => {
    await someWork(6);
    await settle();
    const regrouped = (width: number) => db().$queryRaw<{ b: Date; kind: string; idx: number; n: number }[]>`
      SELECT date_bin(interval '360 minutes', start, timestamp '2000-01-01') AS b, kind, idx, sum(n)::int AS n
      FROM "JobTimeRollup" WHERE width = ${width} AND start >= now() - interval '1 day' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
    const six = await regrouped(360);
    expect(six.length).toBeGreaterThan(0);
    expect(six).toEqual(await regrouped(30));
    expect(six).toEqual(await regrouped(1));
    // The 7d overview reads the six-hour rows: its buckets equal the events counted per six hours.
    const o = await getOverview("7d");
    const [raw] = await db().$queryRaw<
      { s: number }[]
    >`SELECT count(*)::int AS s FROM "JobEvent" WHERE "toStatus" = 'succeeded'`;
    expect(o.buckets.reduce((a, b) => a + b.succeeded, 0)).toBe(raw!.s);
    // An install upgraded to six-hour rows has only half-hour ones: the migration sums them.
    const sql = fs.readFileSync(
      path.join(process.cwd(), "prisma/migrations/20261202011500_six_hour_rollups/migration.sql"),
      "utf8",
    );
    await db().$executeRaw`DELETE FROM "JobTimeRollup" WHERE width = 360`;
    await db().$executeRawUnsafe(sql);
    expect(await regrouped(360)).toEqual(six);
    expect((await getOverview("7d")).totals).toEqual(o.totals);
  });

  it("a recount repairs counters after jobs are deleted with their events (retention) or written without any", async () => {
    await settle();
    const gone = await createTestJob(learner, "next_action_planning");
    await settle();
    await db().$executeRaw`DELETE FROM "AiRuntimeJob" WHERE id = ${gone.id}`;
    const [base] = await db().$queryRaw<{ id: string }[]>`SELECT id FROM "AiRuntimeJob" LIMIT 1`;
    await db().$executeRaw`
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "createdAt", "updatedAt")
      SELECT ${uid("bulk")} || g, "userId", 'quiz_generation', "targetType", "targetId", "snapshotId", 'succeeded', 'h', ${uid("k")} || g, '{}', now(), now()
      FROM "AiRuntimeJob", generate_series(1, 5) g WHERE id = ${base!.id}`;
    expect(norm(await jobCounts())).not.toEqual(await liveCounts());
    const r = await advanceRollups({ recount: true });
    expect(r.recounted).toBe(true);
    expect(norm(await jobCounts())).toEqual(await liveCounts());
  });
});
