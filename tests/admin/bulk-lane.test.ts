import pg from "pg";
import { describe, expect, it } from "vitest";
import { launchBulkRun } from "@/server/admin/bulk-runner";
import { getDb } from "@/server/db";
import { eventually } from "../helpers/eventually";
import { createLearner, createTestJob } from "../helpers/factories";

/**
 * Bulk runs launched together take one connection between them, not one each: a process works
 * one run at a time and the others wait their turn (nothing lost, every run ends done).
 */
describe("bulk runs at once", () => {
  it("three runs launched together: one works while the others wait, then all three finish", async () => {
    const admin = await createLearner({ role: "admin" });
    const learner = await createLearner();
    const scopes: string[][] = [];
    for (let r = 0; r < 3; r++) {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await createTestJob(learner, "learning_state_analysis")).id);
      scopes.push(ids);
    }
    // Hold one job of the first run: its batch waits on the row lock inside its transaction.
    const lock = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await lock.connect();
    await lock.query("BEGIN");
    await lock.query(`SELECT 1 FROM "AiRuntimeJob" WHERE id = $1 FOR UPDATE`, [scopes[0]![0]]);
    try {
      const runs: { id: string }[] = [];
      for (const ids of scopes) runs.push(await launchBulkRun("cancel", { ids }, ids.length, admin.user.id));
      await eventually("the first run's batch waits on the held job", async () => {
        const rows = await getDb().$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%AiRuntimeJob%'`;
        return rows[0]!.n >= 1;
      });
      // The others have not taken a connection for a batch of their own meanwhile.
      const inTransaction = await getDb().$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE '%FROM "BulkRun" WHERE id = %FOR UPDATE SKIP LOCKED%'
          AND state LIKE 'idle in transaction%'`;
      expect(inTransaction[0]!.n).toBe(0);
      const later = await getDb().bulkRun.findMany({ where: { id: { in: runs.slice(1).map((r) => r.id) } } });
      expect(later.map((r) => r.processed)).toEqual([0, 0]);
      expect(
        await getDb().aiRuntimeJob.count({
          where: { id: { in: [...scopes[1]!, ...scopes[2]!] }, status: "cancelled" },
        }),
      ).toBe(0);
      await lock.query("ROLLBACK");
      await eventually("all three runs are done", async () => {
        const all = await getDb().bulkRun.findMany({ where: { id: { in: runs.map((r) => r.id) } } });
        return all.every((r) => r.status === "done");
      });
      expect(await getDb().aiRuntimeJob.count({ where: { id: { in: scopes.flat() }, status: "cancelled" } })).toBe(9);
    } finally {
      await lock.query("ROLLBACK").catch(() => {});
      await lock.end();
    }
  });
});
