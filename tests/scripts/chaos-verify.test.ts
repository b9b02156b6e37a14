import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { verifyOutcome } from "@/scripts/chaos/verify";

/**
 * The chaos verifier proves that no job ran to a second accepted completion,
 * and fails when the database says otherwise. A clean run passes; each doctored history (the
 * kinds a double completion leaves) is a violation.
 */
describe("the chaos verifier", () => {
  let db: pg.Client;
  let jobId: string;
  let scope: string;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const l = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const job = await createTestJob(l, "weak_point_analysis");
    jobId = job.id;
    // Attempt 1 fails retryably, attempt 2 succeeds: a real two-attempt history.
    expect((await rt.lock(job.id)).status).toBe(200);
    expect((await rt.fail(job.id, 1, "NETWORK_ERROR")).status).toBe(200);
    await db.query(`UPDATE "AiRuntimeJob" SET "runAfter" = now() - interval '1 minute' WHERE id = $1`, [job.id]);
    expect((await rt.lock(job.id)).status).toBe(200);
    const output = validOutput(
      "weak_point_analysis",
      l.knowledgePoints.map((k) => k.id),
    );
    expect((await rt.result(job.id, 2, output)).status).toBe(200);
    scope = `j.id = '${job.id}'`;
  });
  afterAll(() => db.end());

  /** Applies a doctoring in a transaction, verifies inside it, rolls it back. */
  async function doctored(sql: string) {
    await db.query("BEGIN");
    try {
      await db.query(sql.replaceAll("$JOB", jobId));
      return (await verifyOutcome(db, 1, scope)).violations;
    } finally {
      await db.query("ROLLBACK");
    }
  }

  it("passes a clean two-attempt history", async () => {
    expect((await verifyOutcome(db, 1, scope)).violations).toEqual([]);
  });

  it.each([
    [
      "a second accepted completion (another succeeded event)",
      `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "attemptNo") VALUES ('$JOB', 'running', 'succeeded', 'runtime', 1)`,
      /accepted a completion twice/,
    ],
    [
      "the stored result is the lost attempt's",
      `UPDATE "AiRuntimeResult" SET "attemptNo" = 1 WHERE "jobId" = '$JOB'`,
      /not from the attempt whose completion was accepted/,
    ],
    [
      "the job moved on after its completion",
      `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "attemptNo") VALUES ('$JOB', 'succeeded', 'pending', 'system', 2)`,
      /moved on after an accepted completion/,
    ],
    [
      "a succeeded job whose result is gone",
      `DELETE FROM "AiRuntimeResult" WHERE "jobId" = '$JOB'`,
      /succeeded jobs without a result/,
    ],
    [
      "a completion on a job that ended failed",
      `UPDATE "AiRuntimeJob" SET status = 'failed' WHERE id = '$JOB'`,
      /did not end succeeded/,
    ],
    [
      "a retry the events do not record",
      `UPDATE "AiRuntimeJob" SET "retryCount" = 3 WHERE id = '$JOB'`,
      /disagree with their events/,
    ],
  ])("fails on a doctored database: %s", async (_what, sql, expected) => {
    const violations = await doctored(sql);
    expect(violations.join("; ")).toMatch(expected);
  });
});
