import { withDatabase } from "./lib/database-url";

/**
 * Creates one job for a learner from the command line, e.g. for trying the Runtime protocol
 * with curl: npm run job:create -- ada@example.com quiz_generation '{"count":3}'
 */
const [email = "ada@example.com", jobType = "learning_state_analysis", params = "{}"] = process.argv.slice(2);
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { getDb, closeDb } = await import("../server/db");
  const { createJob } = await import("../server/jobs/create");
  const user = await getDb().user.findUnique({ where: { email } });
  if (!user) throw new Error(`no user ${email} (the demo learners are ada@, ben@ and chen@example.com)`);
  const { job, created } = await createJob({
    userId: user.id,
    jobType: jobType as never,
    target: { type: "user", id: user.id },
    params: JSON.parse(params),
    actor: { type: "admin", id: "cli" },
  });
  await closeDb();
  console.log(`${created ? "created" : "already in flight"}: ${job.id} (${job.jobType}, ${job.status})`);
});
