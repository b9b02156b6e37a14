import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { recentByRuntime, RUNTIME_RECENT_HOURS } from "@/server/admin/runtimes";
import { advanceRollups } from "@/server/observability/rollups";
import { createLearner, createTestJob } from "../helpers/factories";

/**
 * The Runtimes page's "last 24 h" per instance, read from hourly rollups plus the events around
 * them, against the plain count over the events it replaces: equal before any fold, after folds,
 * with events past the watermark, and after the migration's backfill.
 */
const db = () => getDb();
const HOUR = 3_600_000;
let jobId: string;
let since: Date;

/** The statement the page used to run: every Runtime event since `since`, counted. */
async function plainCount() {
  const rows = await db().$queryRaw<{ id: string; succeeded: number; failed: number }[]>`
    SELECT "actorId" AS id,
      count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS succeeded,
      count(*) FILTER (WHERE "errorCode" IS NOT NULL AND "errorCode" <> 'CANCELLED' AND "toStatus" IN ('pending', 'failed'))::int AS failed
    FROM "JobEvent" WHERE "actorType" = 'runtime' AND "createdAt" >= ${since}::timestamp(3) GROUP BY 1`;
  return sorted(rows);
}
const sorted = (rows: { id: string; succeeded: number; failed: number }[]) =>
  rows.filter((r) => r.succeeded || r.failed).sort((a, b) => a.id.localeCompare(b.id));

/** Events of three Runtimes (and an admin) from 30 hours ago to now, outcomes of every kind. */
async function events(tag: string, ages: number[]) {
  const kinds = [
    ["succeeded", null],
    ["pending", "PROVIDER_TIMEOUT"],
    ["failed", "INVALID_SCHEMA"],
    ["cancelled", "CANCELLED"],
    ["locked", null],
  ] as const;
  let i = 0;
  for (const ageMs of ages)
    for (const [to, code] of kinds) {
      const actor = `${tag}-${i++ % 3}`;
      const at = new Date(Date.now() - ageMs);
      await db().$executeRaw`
        INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "errorCode", "createdAt")
        VALUES (${jobId}, 'running', ${to}::"JobStatus", 'runtime', ${actor}, 1, ${code}, ${at}::timestamp(3))`;
    }
  await db().$executeRaw`
    INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
    VALUES (${jobId}, 'running', 'succeeded', 'admin', 'someone', 1, now())`;
}

async function settle() {
  const [row] = await db().$queryRaw<{ max: bigint }[]>`SELECT max(id) AS max FROM "JobEvent"`;
  const until = Date.now() + 120_000; // fails a hang only
  while (Date.now() < until) {
    const r = await advanceRollups();
    if (r.ran && BigInt(r.eventId) >= row!.max) return;
    await new Promise((res) => setImmediate(res));
  }
  throw new Error("rollups never caught up");
}

// Ages: outside the window, the part hour at its start, whole hours inside, and now.
const AGES = [
  30 * HOUR,
  RUNTIME_RECENT_HOURS * HOUR - 60_000,
  RUNTIME_RECENT_HOURS * HOUR - 1,
  23 * HOUR,
  5 * HOUR,
  HOUR,
  0,
];

beforeAll(async () => {
  jobId = (await createTestJob(await createLearner())).id;
});

describe("the Runtimes page's recent counts", () => {
  it("equal the plain count before any fold, after folds, with events past the watermark, and after the backfill", async () => {
    await events("rt", AGES);
    since = new Date(Date.now() - RUNTIME_RECENT_HOURS * HOUR);
    const expected = await plainCount();
    expect(expected.length).toBe(3);
    expect(sorted(await recentByRuntime(since))).toEqual(expected);

    await settle();
    const [rolled] = await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "RuntimeHourRollup"`;
    expect(rolled!.n).toBeGreaterThan(0);
    expect(sorted(await recentByRuntime(since))).toEqual(expected);

    // Past the watermark: read live, counted once.
    await events("rt", [0, 2 * HOUR]);
    const more = await plainCount();
    expect(more).not.toEqual(expected);
    expect(sorted(await recentByRuntime(since))).toEqual(more);
    await settle();
    expect(sorted(await recentByRuntime(since))).toEqual(more);

    // An install upgraded to these rollups: the migration fills them from the folded events.
    const sql = fs.readFileSync(
      path.join(process.cwd(), "prisma/migrations/20261202012000_runtime_hour_rollups/migration.sql"),
      "utf8",
    );
    await db().$executeRaw`DELETE FROM "RuntimeHourRollup"`;
    await db().$executeRawUnsafe(sql.slice(sql.indexOf("INSERT INTO")));
    expect(sorted(await recentByRuntime(since))).toEqual(more);
  });
});
