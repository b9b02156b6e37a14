import PgBoss10 from "pg-boss";
import { PgBoss as PgBoss12 } from "pg-boss-12";
import pg from "pg";
import { cpuNow, cpuSince, perJob } from "./cpu";

/**
 * The peer on the same PostgreSQL, in its own schema, in this process, until the queue is empty:
 * - pg-boss 12 (the newest line; it declares Node ≥ 22 but installs and runs on Node 20), with
 *   `loops` concurrent fetch(1) + complete loops; `12-fetch-batch`: the same loops fetching
 *   `batchSize` jobs at a time and completing their ids in one call (the batch our Runtimes claim
 *   and report in); and its `work()` batch mode (`batchSize` jobs per fetch, completed together,
 *   `loops` workers, bursting while batches come back full);
 * - pg-boss 10.4 (the newest line that declares Node 20), fetch(1) + complete, as a second row.
 * Its figures are what a mature PostgreSQL queue costs per job on this machine in this run.
 */
export type PeerMode = "12-fetch" | "12-fetch-batch" | "12-work" | "10-fetch";

type Boss = {
  start(): Promise<unknown>;
  stop(o: object): Promise<unknown>;
  on(e: "error", f: (e: unknown) => void): unknown;
  createQueue(name: string): Promise<unknown>;
  insert(name: string, jobs: object[]): Promise<unknown>;
  fetch(name: string, o: { batchSize: number }): Promise<{ id: string }[]>;
  complete(name: string, id: string | string[], data?: object): Promise<unknown>;
  work(name: string, o: object, h: (jobs: { id: string }[]) => Promise<void>): Promise<string>;
};

/**
 * One timed run. `cpu`: CPU per job by role over the timed part (the pg-boss client runs in this
 * process, so its CPU is the "bench" role).
 */
export async function pgBossRun(
  url: string,
  jobs: number,
  loops: number,
  roles: Parameters<typeof cpuNow>[0],
  mode: PeerMode = "10-fetch",
  batchSize = 50,
  /** Runs after the jobs are in and before the clock starts (the paired rounds' settle). */
  ready?: () => Promise<void>,
  /** Stored as each job's output by complete() (fetch-batch mode), as ours stores a result; none by default. */
  output?: object,
) {
  const options = {
    connectionString: url,
    schema: mode.startsWith("12") ? "pgboss12_bench" : "pgboss_bench",
    max: loops + 2,
    supervise: false,
    schedule: false,
  };
  const boss = (mode.startsWith("12") ? new PgBoss12(options) : new PgBoss10(options)) as unknown as Boss;
  boss.on("error", (e) => console.error("[pg-boss]", e));
  await boss.start();
  const queue = "bench";
  await boss.createQueue(queue).catch(() => {});
  // Each repeat starts from an empty queue table, as ours does (clearJobs: TRUNCATE, so neither
  // system's run leaves dead rows for the next run to vacuum).
  await sql(url, `TRUNCATE ${options.schema}.job CASCADE`);
  for (let left = jobs; left > 0; left -= 1000) {
    const n = Math.min(1000, left);
    const batch = Array.from({ length: n }, (_, i) => ({ name: queue, data: { n: i } }));
    // pg-boss 12 takes the queue as its first argument; 10 reads it from each job.
    await (mode.startsWith("12")
      ? boss.insert(queue, batch)
      : (boss.insert as unknown as (j: object[]) => Promise<unknown>)(batch));
  }
  await ready?.();
  let done = 0;
  const fetchLoop = async () => {
    for (;;) {
      const [job] = await boss.fetch(queue, { batchSize: 1 });
      if (!job) return;
      await boss.complete(queue, job.id);
      done++;
    }
  };
  const fetchBatchLoop = async () => {
    for (;;) {
      const batch = await boss.fetch(queue, { batchSize });
      if (!batch.length) return;
      await boss.complete(
        queue,
        batch.map((j) => j.id),
        output,
      );
      done += batch.length;
    }
  };
  const workUntilEmpty = () =>
    new Promise<void>((resolve, reject) => {
      boss
        .work(
          queue,
          { batchSize, localConcurrency: loops, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
          async (batch) => {
            done += batch.length;
            // The batch is completed when the handler returns: wait for the rows, not the handler.
            if (done >= jobs) setImmediate(() => untilCompleted(url, options.schema, jobs).then(resolve, reject));
          },
        )
        .catch(reject);
    });
  const t = performance.now();
  const cpu0 = cpuNow(roles);
  if (mode === "12-work") await workUntilEmpty();
  else await Promise.all(Array.from({ length: loops }, mode === "12-fetch-batch" ? fetchBatchLoop : fetchLoop));
  const cpu = perJob(cpuSince(cpu0, roles), jobs);
  const elapsed = performance.now() - t;
  await boss.stop({ graceful: mode === "12-work", wait: true, timeout: 10_000 }).catch(() => {});
  if (done !== jobs) throw new Error(`pg-boss ${mode} completed ${done} of ${jobs}`);
  return { jobs: done, elapsedMs: elapsed, jobsPerSecond: (done / elapsed) * 1000, cpu };
}

async function sql(url: string, text: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(text).finally(() => c.end());
}

async function untilCompleted(url: string, schema: string, jobs: number) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (;;) {
      const r = await c.query(`SELECT count(*)::int AS n FROM ${schema}.job WHERE state = 'completed'`);
      if (r.rows[0].n >= jobs) return;
      await new Promise((f) => setTimeout(f, 2));
    }
  } finally {
    await c.end();
  }
}
