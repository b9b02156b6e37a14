import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { releaseJobsOf } from "../helpers/release-jobs";
import { getDb } from "@/server/db";
import { STORE_TRIES } from "@/server/jobs/results";

/**
 * submitResult writes, and when the write misses reads the row to say why; a row that still
 * looks held, valid and not cancelled means another writer changed it in between, so it tries
 * again — at most STORE_TRIES times. Here a real trigger makes every write of this one job's
 * success miss (BEFORE UPDATE … RETURN NULL skips the row) and counts the tries.
 */
it(`a result whose write keeps missing is tried ${STORE_TRIES} times, then 409 LOCK_LOST, and nothing is stored`, async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner);
  const rt = runtime(await runtimeKey(), uid("rt"));
  expect((await rt.lock(job.id)).status).toBe(200);
  expect((await rt.heartbeat(job.id, 1)).status).toBe(200);

  const tag = uid("miss").replace(/[^a-z0-9_]/gi, "_");
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query(`CREATE TABLE "${tag}" (n int)`);
    await db.query(`CREATE FUNCTION "${tag}"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = '${job.id}' AND NEW.status = 'succeeded' THEN INSERT INTO "${tag}" VALUES (1); RETURN NULL; END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER "${tag}" BEFORE UPDATE ON "AiRuntimeJob" FOR EACH ROW EXECUTE FUNCTION "${tag}"()`);

    const output = validOutput(
      "learning_state_analysis",
      learner.knowledgePoints.map((k) => k.id),
      {},
    );
    const res = await rt.result(job.id, 1, output);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: "LOCK_LOST", details: { tries: STORE_TRIES } } });
    expect((await db.query(`SELECT count(*)::int AS n FROM "${tag}"`)).rows[0].n).toBe(STORE_TRIES);
    const row = await jobRow(job.id);
    expect(row.status).toBe("running");
    expect(row.events.filter((e) => e.toStatus === "succeeded")).toEqual([]);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: job.id } })).toBe(0);
  } finally {
    await db.query(`DROP TRIGGER IF EXISTS "${tag}" ON "AiRuntimeJob"`);
    await db.query(`DROP FUNCTION IF EXISTS "${tag}"()`);
    await db.query(`DROP TABLE IF EXISTS "${tag}"`);
    await db.end();
    await releaseJobsOf([learner]);
  }
});
