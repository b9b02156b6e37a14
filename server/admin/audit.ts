import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";

export type AuditEntry = {
  actorId: string;
  /** e.g. job.rerun, job.cancel, job.priority, jobs.bulk_rerun, runtime_key.create */
  action: string;
  /** What it acted on: a job id, a key id, or a bulk scope (ids or filter). */
  scope: unknown;
  /** How many things it changed. */
  count: number;
};

/** Every admin action leaves a row: who, when, what, how many. */
export async function recordAudit(entry: AuditEntry, db: DbOrTx = getDb()) {
  await db.$executeRaw`
    INSERT INTO "AdminAuditLog" ("actorId", action, scope, count, "createdAt")
    VALUES (${entry.actorId}, ${entry.action}, ${JSON.stringify(entry.scope ?? null)}::jsonb, ${entry.count}, ${now()}::timestamp(3))`;
}

export async function listAudit(limit: number) {
  return getDb().$queryRaw<
    {
      id: string;
      actorId: string;
      actorEmail: string | null;
      action: string;
      scope: unknown;
      count: number;
      createdAt: Date;
    }[]
  >`
    SELECT a.id::text AS id, a."actorId", u.email AS "actorEmail", a.action, a.scope, a.count, a."createdAt"
    FROM "AdminAuditLog" a LEFT JOIN "User" u ON u.id = a."actorId"
    ORDER BY a.id DESC LIMIT ${Math.max(1, Math.min(200, limit))}`;
}
