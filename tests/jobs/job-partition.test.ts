import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { getPool } from "@/server/db";
import { advanceClock, resetClock } from "@/server/clock";
import { ensurePartitions, idAt, listSpans, type Span } from "@/server/jobs/partitions";
import {
  forgetPartitions,
  livePartition,
  notePending,
  onPartition,
  partitionOf,
  siblingOf,
} from "@/server/jobs/job-partition";
import { claimStatement } from "@/server/jobs/lease";
import { JOB_TYPES } from "@/server/job-types";
import { createLearner, runtimeKey, uid } from "../helpers/factories";
import { jobIn } from "../helpers/states";
import { runtime, ALL_TYPES } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";

/**
 * A hot statement names the job table's partition it works on (one plain table
 * to plan and open), and the parent whenever one partition would not be right.
 */
afterEach(() => {
  resetClock();
  forgetPartitions();
});

const q = (text: string, values: unknown[] = []) => getPool().query(text, values);
const jobPart = (span: Span) => `AiRuntimeJob${span.name.slice("JobEvent".length)}`;
/** The present's clock in the middle of the present's span, so ids made now fall in one partition only. */
async function midSpan() {
  const span = (await listSpans()).find((s) => s.from <= Date.now() && Date.now() < s.to)!;
  advanceClock((span.from + span.to) / 2 - Date.now());
  return span;
}
/** A copy of a job under an id made at `at`: a job made in another span. */
async function copyInto(jobId: string, at: number, set: Record<string, unknown>) {
  const id = idAt(at) + randomBytes(8).toString("hex");
  await q(
    `INSERT INTO "AiRuntimeJob" SELECT (jsonb_populate_record(NULL::"AiRuntimeJob", to_jsonb(j) || $2::jsonb)).*
     FROM "AiRuntimeJob" j WHERE id = $1`,
    [jobId, JSON.stringify({ id, idempotencyKey: id, ...set })],
  );
  return id;
}

describe("the job table's partition a statement names", () => {
  it("claims read the one live partition; a job in flight in another span makes them read the parent, and it is claimed", async () => {
    await ensurePartitions();
    const present = await midSpan();
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const waiting = await jobIn("pending", learner, rt);
    expect(await livePartition()).toBe(jobPart(present));
    // A pending job made a day before the first span (in `_before`, as one made before the partitions):
    // two partitions hold jobs in flight.
    const old = await copyInto(waiting.id, (await listSpans())[0]!.from - 86_400_000, { status: "pending" });
    expect((await q(`SELECT tableoid::regclass::text AS p FROM "AiRuntimeJob" WHERE id = $1`, [old])).rows[0].p).toBe(
      `"AiRuntimeJob_before"`,
    );
    // Until the partitions are read again, claims read the present's only; a NOTIFY of a pending job
    // outside it makes this process read them again before its next claim.
    notePending(old);
    expect(await livePartition()).toBe("AiRuntimeJob");
    const claimed = await rt.poll({ claim: true, limit: 10, capabilities: ALL_TYPES });
    expect(claimed.status).toBe(200);
    const jobs = (claimed.body.jobs as { job: { id: string; attemptNo: number } }[]).map((c) => c.job);
    expect(jobs.map((j) => j.id).sort()).toEqual([old, waiting.id].sort());
    // Both end: the old span holds nothing in flight any more, and claims go back to the present's partition.
    await q(`UPDATE "AiRuntimeJob" SET status = 'cancelled', "finishedAt" = now() WHERE id = ANY($1)`, [
      [old, waiting.id],
    ]);
    forgetPartitions();
    expect(await livePartition()).toBe(jobPart(present));
  });

  it("a batch of results names its jobs' partition, or the parent when they are in two spans; both store every result", async () => {
    await ensurePartitions();
    const present = await midSpan();
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const a = await jobIn("running", learner, rt);
    const b = await jobIn("running", learner, rt);
    const next = (await listSpans()).find((s) => s.from >= present.to)!;
    const c = await copyInto(b.id, next.from + 1_000, {});
    expect(await partitionOf([a.id, b.id])).toBe(jobPart(present));
    expect(await partitionOf([a.id, c])).toBe("AiRuntimeJob");
    expect(await partitionOf([uid("not-a-cuid")])).toBe("AiRuntimeJob");
    const kps = learner.knowledgePoints.map((k) => k.id);
    const item = (jobId: string) => ({
      jobId,
      jobType: "weak_point_analysis",
      attemptNo: 1,
      output: validOutput("weak_point_analysis", kps),
    });
    const first = await rt.results([item(a.id), item(b.id)]);
    expect(first.body.results.map((r: { httpStatus: number }) => r.httpStatus)).toEqual([200, 200]);
    const d = await jobIn("running", learner, rt);
    const second = await rt.results([item(d.id), item(c)]);
    expect(second.body.results.map((r: { httpStatus: number }) => r.httpStatus)).toEqual([200, 200]);
    const { rows } = await q(`SELECT id, status FROM "AiRuntimeJob" WHERE id = ANY($1) ORDER BY id`, [
      [a.id, b.id, c, d.id],
    ]);
    expect(rows.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    expect(
      (await q(`SELECT count(*)::int AS n FROM "AiRuntimeResult" WHERE "jobId" = ANY($1)`, [[a.id, b.id, c, d.id]]))
        .rows[0].n,
    ).toBe(4);
  });

  it("a statement on a span's job partition writes that span's events and results partitions by name, not through the parents", async () => {
    await ensurePartitions();
    const present = await midSpan();
    const part = jobPart(present);
    const suffix = part.slice("AiRuntimeJob".length);
    expect(siblingOf(part, "JobEvent")).toBe(`JobEvent${suffix}`);
    expect(siblingOf("AiRuntimeJob", "AiRuntimeResult")).toBe("AiRuntimeResult");
    const input = { runtimeInstanceId: "rt", capabilities: [...JOB_TYPES], limit: 3 };
    const text = claimStatement(input, new Date(), part).text;
    expect(text).toContain(`INSERT INTO "JobEvent${suffix}"`);
    expect(text).not.toContain(`INSERT INTO "JobEvent" `);
    expect(claimStatement(input, new Date()).text).toContain(`INSERT INTO "JobEvent" `);

    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const job = await jobIn("pending", learner, rt);
    const claimed = await rt.poll({ claim: true, limit: 1, capabilities: ALL_TYPES });
    expect(claimed.body.jobs.map((c: { job: { id: string } }) => c.job.id)).toEqual([job.id]);
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    expect(
      (await rt.results([{ jobId: job.id, jobType: "weak_point_analysis", attemptNo: 1, output }])).body.results[0]
        .httpStatus,
    ).toBe(200);
    const where = (t: string) => q(`SELECT tableoid::regclass::text AS p FROM "${t}" WHERE "jobId" = $1`, [job.id]);
    expect(new Set((await where("JobEvent")).rows.map((r) => r.p))).toEqual(new Set([`"JobEvent${suffix}"`]));
    expect((await where("AiRuntimeResult")).rows.map((r) => r.p)).toEqual([`"AiRuntimeResult${suffix}"`]);
    expect((await q(`SELECT status FROM "AiRuntimeJob" WHERE id = $1`, [job.id])).rows[0].status).toBe("succeeded");
  });

  it("a partition dropped since it was read: the statement runs again on the parent", async () => {
    const seen: string[] = [];
    const out = await onPartition("AiRuntimeJob_p190001010000", async (table) => {
      seen.push(table);
      return (await q(`SELECT count(*)::int AS n FROM "${table}" WHERE false`)).rows[0].n as number;
    });
    expect(seen).toEqual(["AiRuntimeJob_p190001010000", "AiRuntimeJob"]);
    expect(out).toBe(0);
    // Other errors are not swallowed.
    await expect(onPartition("AiRuntimeJob_default", () => q(`SELECT 1/0`))).rejects.toMatchObject({ code: "22012" });
  });
});
