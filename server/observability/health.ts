import fs from "node:fs";
import path from "node:path";
import type { QueryConfig } from "pg";
import { getReserveDb, getReservePool } from "../db-reserve";
import { setting } from "../config";
import { isDraining } from "../lifecycle";

/**
 * Liveness of what the app needs: the database answers and commits (a write probe under
 * READY_DB_TIMEOUT_MS, server/db-deadline.ts), and every migration in
 * prisma/migrations has been applied (a deploy that skipped `db:migrate` shows up here).
 */
export async function health(
  migrationsDir = path.join(/* turbopackIgnore: true */ process.cwd(), "prisma", "migrations"),
) {
  const expected = fs.existsSync(migrationsDir)
    ? fs
        .readdirSync(migrationsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  try {
    const rows = await getReserveDb().$queryRaw<{ migration_name: string; standby: boolean }[]>`
      SELECT migration_name, pg_is_in_recovery() AS standby
      FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    // A standby answers reads but refuses every write: in a failover, a connection that still
    // reaches the demoted primary (or a URL pointed at a standby) is not a database to serve from.
    if (rows[0]?.standby)
      return {
        ok: false,
        database: "down" as const,
        error: "the database is a read-only standby, not the primary",
        migrations: { applied: 0, pending: expected },
      };
    // A primary that answers reads may still be unable to commit (no synchronous standby in strict
    // mode, a full disk): a transaction that takes a transaction id must commit within the deadline.
    await getReservePool().query({
      text: "SELECT txid_current()",
      deadlineMs: setting("READY_DB_TIMEOUT_MS"),
    } as QueryConfig);
    const applied = new Set(rows.map((r) => r.migration_name));
    const pending = expected.filter((m) => !applied.has(m));
    return { ok: pending.length === 0, database: "up" as const, migrations: { applied: applied.size, pending } };
  } catch (e) {
    return {
      ok: false,
      database: "down" as const,
      error: (e as Error).message.split("\n")[0],
      migrations: { applied: 0, pending: expected },
    };
  }
}

/** Readiness: not draining (SIGTERM received), and health() is green within READY_DB_TIMEOUT_MS (2 s: a probe that hangs is worse than one that fails). */
export async function readiness() {
  if (isDraining()) return { ok: false, draining: true };
  const timeout = new Promise<Awaited<ReturnType<typeof health>>>((resolve) => {
    setTimeout(
      () =>
        resolve({
          ok: false,
          database: "down",
          error: "database check timed out",
          migrations: { applied: 0, pending: [] },
        }),
      setting("READY_DB_TIMEOUT_MS"),
    ).unref();
  });
  const h = await Promise.race([health(), timeout]);
  return { ...h, ok: h.ok && !isDraining(), draining: isDraining() };
}
