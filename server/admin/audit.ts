import { getDb } from "../db";

/** The audit log for the console, newest first (rows are written by recordAudit, server/audit.ts). */
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
