import pg from "pg";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "@/server/errors";
import { InProcessScheduler, lockKey, type TaskRun } from "@/server/scheduler/in-process";

/**
 * What a failover looks like to one app process, on a real PostgreSQL: the sessions the primary
 * held are cut (pg_terminate_backend, as HAProxy's shutdown-sessions or a dying server does), and
 * a connection that still reaches a demoted primary has its writes refused (a read-only
 * transaction raises the same 25006 a standby does). tests/system/failover.test.ts runs the real thing.
 */
const url = () => process.env.DATABASE_URL!;

async function client() {
  const c = new pg.Client({ connectionString: url() });
  c.on("error", () => {});
  await c.connect();
  return c;
}

describe("a lost or demoted primary, as the app sees it", () => {
  it("a write refused as read-only and a session cut under a statement are both 'unavailable' (503), not 500", async () => {
    const c = await client();
    const admin = await client();
    try {
      await c.query("BEGIN TRANSACTION READ ONLY");
      const refused = await c.query("CREATE TEMP TABLE t (x int)").catch((e: unknown) => e);
      await c.query("ROLLBACK");
      expect((refused as { code?: string }).code).toBe("25006");
      expect(isDatabaseUnavailable(refused)).toBe(true);

      const pid = (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const cut = c.query("SELECT pg_sleep(30)").catch((e: unknown) => e);
      // Cut it only once the server runs the statement (seen in pg_stat_activity), so the cut is
      // under the statement however slowly the machine sends it.
      let terminated = false;
      while (!terminated) {
        const { rows } = await admin.query<{ t: boolean }>(
          "SELECT pg_terminate_backend($1) AS t FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'",
          [pid],
        );
        terminated = rows[0]?.t === true;
      }
      const e = await cut;
      expect(e).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(e), String(e)).toBe(true);
      // The client is then dead; a statement on it is refused the same way.
      expect(isDatabaseUnavailable(await c.query("SELECT 1").catch((x: unknown) => x))).toBe(true);
    } finally {
      await c.end().catch(() => {});
      await admin.end();
    }
  });

  it("the scheduler's lock session cut while its task runs fails that run only; the next tick takes the lock again", async () => {
    const admin = await client();
    let release = () => {};
    const holding = new Promise<void>((r) => (release = r));
    let runs = 0;
    const runsSeen: TaskRun[] = [];
    const task = {
      id: `failover-${Date.now()}`,
      everyMs: 3_600_000,
      run: async () => {
        runs++;
        if (runs === 1) await holding;
        return { run: runs };
      },
    };
    const scheduler = new InProcessScheduler(url(), [task], (r) => runsSeen.push(r));
    try {
      const first = scheduler.tick(task);
      // The lock session, found by what it holds, is cut while the task runs on it.
      let pid: number | undefined;
      for (let i = 0; i < 100 && !pid; i++) {
        const { rows } = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND objid::bigint = ($1::bigint & 4294967295)",
          [lockKey(task.id)],
        );
        pid = rows[0]?.pid;
        if (!pid) await new Promise((r) => setTimeout(r, 20));
      }
      expect(pid).toBeDefined();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      release();
      const r1 = await first;
      expect(r1.ran).toBe(true);
      // The lock went with the session; the next tick opens a new one and takes it.
      const r2 = await scheduler.tick(task);
      expect(r2).toMatchObject({ ran: true, result: { run: 2 } });
    } finally {
      release();
      await scheduler.stop();
      await admin.end();
    }
  });
});
