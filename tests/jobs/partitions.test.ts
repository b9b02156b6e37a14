import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { getPool } from "@/server/db";
import { advanceClock, now as clockNow, resetClock } from "@/server/clock";
import { pruneFinishedJobs } from "@/server/jobs/retention";
import { ensurePartitions, idAt, listSpans, timeOfId, type Span } from "@/server/jobs/partitions";
import { createLearner, runtimeKey, uid } from "../helpers/factories";
import { jobIn } from "../helpers/states";
import { runtime } from "../helpers/runtime-api";

/**
 * Jobs, events and results live in time partitions (ranges of the job id, a cuid
 * that starts with its creation time) and age out by dropping whole partitions; only jobs whose ids
 * no span holds (from before the partitions, or not cuids) are deleted by rows.
 */
const DAY = 86_400_000;
afterEach(() => resetClock());

const q = (text: string, values: unknown[] = []) => getPool().query(text, values);
const spanOf = (spans: Span[], id: string) => {
  const t = timeOfId(id.slice(0, 9))!;
  return spans.find((s) => s.from <= t && t < s.to);
};
/** Where a job's rows are: the partitions of its job row, its result and its events. */
async function homes(jobId: string) {
  const { rows } = await q(
    `SELECT 'job' AS kind, tableoid::regclass::text AS part FROM "AiRuntimeJob" WHERE id = $1
     UNION SELECT 'result', tableoid::regclass::text FROM "AiRuntimeResult" WHERE "jobId" = $1
     UNION SELECT 'event', tableoid::regclass::text FROM "JobEvent" WHERE "jobId" = $1 ORDER BY 1`,
    [jobId],
  );
  return rows as { kind: string; part: string }[];
}
/** A copy of a job (and its events) under another id: how a test puts a job into a span of its choosing. */
async function copyJob(jobId: string, id: string, set: Record<string, unknown>) {
  await q(
    `INSERT INTO "AiRuntimeJob" SELECT (jsonb_populate_record(NULL::"AiRuntimeJob", to_jsonb(j) || $2::jsonb)).*
     FROM "AiRuntimeJob" j WHERE id = $1`,
    [jobId, JSON.stringify({ id, idempotencyKey: id, ...set })], // its own key: one job per key
  );
  await q(
    `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
     SELECT $2, "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt" FROM "JobEvent" WHERE "jobId" = $1`,
    [jobId, id],
  );
  return id;
}
const idIn = (span: Span) => idAt(span.from + 1_000) + randomBytes(8).toString("hex");
const partitionsOf = async (table: string) =>
  (
    await q(
      `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
      [`"${table}"`],
    )
  ).rows.map((r) => r.relname as string);

describe("time partitions", () => {
  it("a job's events and result sit in the partition of the job's creation time", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const job = await jobIn("succeeded", learner, rt);
    const span = spanOf(await listSpans(), job.id);
    expect(span, "a span holds the new job's id").toBeDefined();
    const suffix = span!.name.slice("JobEvent".length);
    expect(await homes(job.id)).toEqual([
      { kind: "event", part: `"JobEvent${suffix}"` },
      { kind: "job", part: `"AiRuntimeJob${suffix}"` },
      { kind: "result", part: `"AiRuntimeResult${suffix}"` },
    ]);
    // Spans run ahead of now, back to back, JOB_PARTITION_DAYS (7) wide except the first after the migration.
    const spans = await listSpans();
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i]!.from).toBe(spans[i - 1]!.to);
      expect(spans[i]!.to - spans[i]!.from).toBe(7 * DAY);
    }
    expect(spans[spans.length - 1]!.to).toBeGreaterThan(Date.now() + 2 * 7 * DAY);
    for (const table of ["AiRuntimeResult", "AiRuntimeJob"])
      expect(await partitionsOf(table)).toEqual(
        expect.arrayContaining(spans.map((s) => `${table}${s.name.slice("JobEvent".length)}`)),
      );
    // Each span's events and results refer to that span's jobs (a foreign key per pair of partitions).
    const keys = await q(
      `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
       WHERE contype = 'f' AND conname LIKE $1`,
      [`%${suffix}_jobId_fkey`],
    );
    expect(keys.rows.sort((a, b) => a.child.localeCompare(b.child))).toEqual([
      { child: `"AiRuntimeResult${suffix}"`, parent: `"AiRuntimeJob${suffix}"` },
      { child: `"JobEvent${suffix}"`, parent: `"AiRuntimeJob${suffix}"` },
    ]);
  });

  it("makes spans ahead once under concurrent callers, and leaves out a span whose ids the default partition holds", async () => {
    await ensurePartitions(); // as every migration run and the daily retention run do
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const job = await jobIn("cancelled", learner, rt);
    const before = await listSpans();
    const last = before[before.length - 1]!;
    // A job made while no span covered its time (past the two made ahead): its events land in the default partition.
    const early = await copyJob(job.id, idAt(last.to + 2 * 7 * DAY + DAY) + "x", {});
    expect((await homes(early)).find((h) => h.kind === "event")!.part).toBe(`"JobEvent_default"`);
    const at = Date.now() + 12 * 7 * DAY;
    const [a, b] = await Promise.all([ensurePartitions(getPool(), at), ensurePartitions(getPool(), at)]);
    const made = [...a.made, ...b.made];
    expect(new Set(made).size).toBe(made.length); // no span made twice
    const after = await listSpans();
    expect(after.length).toBe(before.length + made.length);
    expect(a.skipped.length + b.skipped.length).toBeGreaterThanOrEqual(1);
    const skipped = [...a.skipped, ...b.skipped][0]!;
    expect(after.map((s) => s.name)).not.toContain(skipped);
    // Back to back except around the skipped span; never overlapping.
    for (let i = 1; i < after.length; i++) expect(after[i]!.from).toBeGreaterThanOrEqual(after[i - 1]!.to);
    expect(after.filter((s, i) => i > 0 && s.from > after[i - 1]!.to)).toHaveLength(1);
    // The events stay where they are, and readable.
    expect((await homes(early)).find((h) => h.kind === "event")!.part).toBe(`"JobEvent_default"`);
  });

  it("retention drops a span's jobs, events and results once its jobs all ended before the cutoff; rows outside spans go by rows", async () => {
    await ensurePartitions();
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const done = await jobIn("succeeded", learner, rt);
    const failed = await createLearnerJobRejected(learner, rt);
    const spans = await listSpans();
    const now = spanOf(spans, done.id)!;
    const [next, later] = spans.filter((s) => s.from >= now.to);
    // A pending job in the next span, re-running `done`; a job in the span after, ended 60 days from now.
    const pending = await copyJob(done.id, idIn(next!), {
      status: "pending",
      finishedAt: null,
      retriedFromJobId: done.id,
    });
    const endedLate = await copyJob(done.id, idIn(later!), {
      status: "cancelled",
      finishedAt: new Date(Date.now() + 60 * DAY).toISOString(),
    });
    // A job whose id no span holds (as one from before the migration): its events go by the cascade, as they always did.
    const legacy = await copyJob(done.id, uid("legacy"), {
      finishedAt: new Date(Date.now() - 200 * DAY).toISOString(),
    });
    expect((await homes(legacy)).find((h) => h.kind === "event")!.part).toBe(`"JobEvent_default"`);
    expect((await q(`SELECT count(*)::int AS n FROM "JobRejection" WHERE "jobId" = $1`, [failed])).rows[0].n).toBe(1);

    expect((await homes(legacy)).find((h) => h.kind === "job")!.part).toBe(`"AiRuntimeJob_default"`);

    advanceClock(120 * DAY); // cutoff: 30 days from now
    const cutoff = new Date(clockNow().getTime() - 90 * DAY);
    // Rows go only where no span holds them: the legacy job (the migration's `_before` holds none here).
    const rowsToDelete = (
      await q(
        `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status IN ('succeeded', 'failed', 'cancelled') AND "finishedAt" < $1
           AND tableoid IN ('"AiRuntimeJob_before"'::regclass, '"AiRuntimeJob_default"'::regclass)`,
        [cutoff],
      )
    ).rows[0].n as number;
    expect(rowsToDelete).toBeGreaterThanOrEqual(1);
    const first = await pruneFinishedJobs();
    expect(first.droppedPartitions).toContain(now.name);
    expect(first.droppedPartitions).not.toContain(next!.name);
    expect(first.droppedPartitions).not.toContain(later!.name);
    for (const table of ["AiRuntimeResult", "JobEvent", "AiRuntimeJob"])
      expect(await partitionsOf(table)).not.toContain(`${table}${now.name.slice("JobEvent".length)}`);
    // The span's jobs went with it (a rejection deleted first); the legacy job by its row.
    expect(first.deleted).toBe(rowsToDelete);
    for (const id of [done.id, failed, legacy]) expect(await homes(id)).toEqual([]);
    expect((await q(`SELECT count(*)::int AS n FROM "JobRejection" WHERE "jobId" = $1`, [failed])).rows[0].n).toBe(0);
    // The re-run's link to the dropped job is cleared (as ON DELETE SET NULL would); its span and the later one stay.
    const kept = (await q(`SELECT status, "retriedFromJobId" FROM "AiRuntimeJob" WHERE id = $1`, [pending])).rows[0];
    expect(kept).toEqual({ status: "pending", retriedFromJobId: null });
    expect((await homes(pending)).map((h) => h.kind)).toEqual(["event", "job"]);
    expect((await homes(endedLate)).map((h) => h.kind)).toEqual(["event", "job"]);

    // Once the pending job ends and its end passes the cutoff too, both spans go.
    await q(`UPDATE "AiRuntimeJob" SET status = 'cancelled', "finishedAt" = $2 WHERE id = $1`, [
      pending,
      new Date(Date.now() + 120 * DAY),
    ]);
    advanceClock(100 * DAY);
    const second = await pruneFinishedJobs();
    expect(second.droppedPartitions).toEqual(expect.arrayContaining([next!.name, later!.name]));
    expect(await homes(pending)).toEqual([]);
    expect(await homes(endedLate)).toEqual([]);
  });
});

/** A job whose output the Runtime sent off the schema: it failed, with a rejection row (an unpartitioned table). */
async function createLearnerJobRejected(
  learner: Awaited<ReturnType<typeof createLearner>>,
  rt: ReturnType<typeof runtime>,
) {
  const job = await jobIn("running", learner, rt);
  expect((await rt.result(job.id, 1, { nonsense: true })).status).toBe(422);
  return job.id;
}
