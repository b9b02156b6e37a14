import crypto from "node:crypto";
import pg from "pg";
import type { ScheduledTask } from "./tasks";

export type TaskRun = { task: string; ran: boolean; result?: unknown; error?: string };

/**
 * The in-process scheduler of zero-setup mode: each task runs every `everyMs` in every app
 * process that started it, but a run first takes a PostgreSQL advisory lock named after the task
 * (pg_try_advisory_lock on a dedicated connection), so across processes one run happens at a
 * time and the others skip that tick. The tasks are also safe on their own (SKIP LOCKED batches,
 * idempotency keys); the lock only avoids wasted work.
 */
export class InProcessScheduler {
  private timers: NodeJS.Timeout[] = [];
  private busy = new Set<string>();
  private running = new Set<Promise<TaskRun>>();
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly tasks: ScheduledTask[],
    private readonly onRun: (run: TaskRun) => void = () => {},
  ) {}

  start(firstRunDelayMs = 5_000) {
    for (const task of this.tasks) {
      const first = setTimeout(() => void this.tick(task), Math.min(firstRunDelayMs, task.everyMs));
      const every = setInterval(() => void this.tick(task), task.everyMs);
      first.unref();
      every.unref();
      this.timers.push(first, every);
    }
    return this;
  }

  /** No new ticks; resolves when the runs in progress have finished (shutdown waits for them). */
  async stop() {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await Promise.allSettled([...this.running]);
  }

  /** One tick of one task; exported for tests. */
  tick(task: ScheduledTask): Promise<TaskRun> {
    const run = this.runTick(task);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return run;
  }

  private async runTick(task: ScheduledTask): Promise<TaskRun> {
    if (this.stopped || this.busy.has(task.id)) return this.report({ task: task.id, ran: false });
    this.busy.add(task.id);
    // A session per tick, so after a failover the next tick takes its lock on the new primary. A
    // session cut while the task runs (the primary lost) must not crash the process: the error
    // listener keeps it an ordinary failed run, and the lock went with the old session.
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000, keepAlive: true });
    client.on("error", () => {});
    try {
      await client.connect();
      const key = lockKey(task.id);
      const { rows } = await client.query("SELECT pg_try_advisory_lock($1::bigint) AS ok", [key]);
      if (!rows[0]?.ok) return this.report({ task: task.id, ran: false });
      try {
        return this.report({ task: task.id, ran: true, result: await task.run() });
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
      }
    } catch (e) {
      return this.report({ task: task.id, ran: true, error: (e as Error).message });
    } finally {
      this.busy.delete(task.id);
      await client.end().catch(() => {});
    }
  }

  private report(run: TaskRun) {
    this.onRun(run);
    return run;
  }
}

/** A stable 63-bit lock id per task name. */
export function lockKey(taskId: string): string {
  return BigInt.asIntN(
    64,
    BigInt(`0x${crypto.createHash("sha256").update(`scheduler:${taskId}`).digest("hex").slice(0, 16)}`),
  ).toString();
}
