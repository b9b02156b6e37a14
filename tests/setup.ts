import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { closeDb } from "@/server/db";
import { resetClock } from "@/server/clock";
import { stopJobFeed } from "@/server/events/job-feed";

// Learner quotas (server/jobs/quota.ts) are product limits, not test limits: files that create
// dozens of jobs for one learner should not trip them. tests/jobs/quota.test.ts sets its own.
process.env.QUOTA_JOBS_PER_HOUR ??= "100000";
process.env.QUOTA_JOBS_PER_DAY ??= "100000";
process.env.QUOTA_JOB_TYPE_PER_HOUR ??= "none";

if (!process.env.DATABASE_URL)
  throw new Error("run the tests with `npm test`: it starts PostgreSQL and sets DATABASE_URL");

/**
 * Every test file gets its own database, copied from the migrated template `npm test` made
 * (CREATE DATABASE … TEMPLATE is a file copy: tens of milliseconds). Files then never see each
 * other's jobs — a queue poll with a limit, a sweep of every lease or 100k generated rows in one
 * file cannot disturb another — and are dropped at the end.
 */
const template = process.env.TEST_TEMPLATE_DATABASE_URL;
let own: { admin: string; name: string } | null = null;
if (template) {
  const name = `ajr_file_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = template.replace(/\/[^/]*$/, "/postgres");
  const templateName = template.split("/").pop()!.split("?")[0]!;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
  await client.end();
  own = { admin, name };
  process.env.DATABASE_URL = template.replace(/\/[^/]*$/, `/${name}`);
}

afterAll(async () => {
  resetClock();
  await stopJobFeed();
  await closeDb();
  if (own) {
    const client = new pg.Client({ connectionString: own.admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${own.name}" WITH (FORCE)`);
    await client.end();
  }
});
