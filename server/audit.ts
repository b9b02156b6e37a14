import { getPrimaryDb, type DbOrTx } from "./db";
import { now } from "./clock";

export type AuditEntry = {
  actorId: string;
  /** e.g. job.rerun, job.cancel, job.priority, jobs.bulk_rerun, runtime_key.create */
  action: string;
  /** What it acted on: a job id, a key id, or a bulk scope (ids or filter). */
  scope: unknown;
  /** How many things it changed. */
  count: number;
};

/**
 * Every admin action leaves a row: who, when, what, how many. Written by the domain, inside the
 * transaction of the change it records (pass `db`), so the row exists exactly when the change
 * committed. The console reads them with listAudit() (server/admin/audit.ts). Without `db`, on the
 * primary even inside a read sent to a standby (server/read-replica.ts).
 */
export async function recordAudit(entry: AuditEntry, db: DbOrTx = getPrimaryDb()) {
  await db.$executeRaw`
    INSERT INTO "AdminAuditLog" ("actorId", action, scope, count, "createdAt")
    VALUES (${entry.actorId}, ${entry.action}, ${JSON.stringify(entry.scope ?? null)}::jsonb, ${entry.count}, ${now()}::timestamp(3))`;
}
