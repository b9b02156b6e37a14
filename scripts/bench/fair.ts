import http from "node:http";
import pg from "pg";
import { postJson } from "./http";

/**
 * Fair order with a backlog: learner A (bench_user) has the queue's pending jobs; 4 busy Runtimes
 * each hold one of A's; learner B asks for one analysis. Counts the claims until B's job is taken.
 */
export async function fairOrder(opts: { db: pg.Client; agent: http.Agent; appUrl: string; key: string }) {
  const { createJob } = await import("../../server/jobs/create");
  const claim = async (who: string) => {
    const res = await postJson(opts.agent, `${opts.appUrl}/internal/runtime/jobs/poll`, opts.key, {
      runtimeInstanceId: who,
      capabilities: ["learning_state_analysis"],
      limit: 1,
      claim: true,
    });
    return (res.json?.jobs ?? []).map((j: { job: { id: string } }) => j.job.id) as string[];
  };
  for (let i = 0; i < 4; i++) await claim(`busy-${i}`);
  const queued = (
    await opts.db.query(
      `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'pending' AND "userId" = 'bench_user'`,
    )
  ).rows[0].n as number;
  const { job } = await createJob({
    userId: "bench_user_b",
    jobType: "learning_state_analysis",
    target: { type: "user", id: "bench_user_b" },
    idempotencyKey: `fair_${Date.now()}`,
    actor: { type: "learner", id: "bench_user_b" },
  });
  for (let n = 1; n <= 100; n++)
    if ((await claim("next")).includes(job.id))
      return { learnerAQueued: queued, busyRuntimes: 4, learnerBClaimedAfter: n };
  return { learnerAQueued: queued, busyRuntimes: 4, learnerBClaimedAfter: null };
}
