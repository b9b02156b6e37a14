import PgBoss from "pg-boss";

/**
 * The peer: pg-boss 10 (the newest line that runs on Node 20) on the same PostgreSQL, in its own
 * schema, `loops` concurrent fetch(1) + complete loops in this process, until the queue is empty.
 * Its figures are what a mature PostgreSQL queue costs per job on this machine in this run.
 */
export async function pgBossRun(
  url: string,
  jobs: number,
  loops: number,
  measure: <T>(fn: () => Promise<T>) => Promise<T>,
) {
  const boss = new PgBoss({
    connectionString: url,
    schema: "pgboss_bench",
    max: loops + 2,
    supervise: false,
    schedule: false,
  });
  boss.on("error", (e) => console.error("[pg-boss]", e));
  await boss.start();
  const queue = "bench";
  await boss.createQueue(queue).catch(() => {});
  for (let left = jobs; left > 0; left -= 1000) {
    await boss.insert(Array.from({ length: Math.min(1000, left) }, (_, i) => ({ name: queue, data: { n: i } })));
  }
  let done = 0;
  const loop = async () => {
    for (;;) {
      const [job] = await boss.fetch(queue, { batchSize: 1 });
      if (!job) return;
      await boss.complete(queue, job.id);
      done++;
    }
  };
  const t = performance.now();
  await measure(() => Promise.all(Array.from({ length: loops }, loop)));
  const elapsed = performance.now() - t;
  await boss.stop({ graceful: false, wait: true }).catch(() => {});
  if (done !== jobs) throw new Error(`pg-boss completed ${done} of ${jobs}`);
  return { jobs: done, elapsedMs: elapsed, jobsPerSecond: (done / elapsed) * 1000 };
}
