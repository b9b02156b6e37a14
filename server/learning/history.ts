import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { parseCursorPosition } from "../cursor";
import { toJobView } from "../jobs/views";

/**
 * The cursor is the last row's `createdAt|id`: plain text, so the learner page can start the
 * history right after the live first page it already shows.
 */
export function historyCursor(row: { createdAt: Date | string; id: string }) {
  return `${new Date(row.createdAt).toISOString()}|${row.id}`;
}

/**
 * A learner's whole history, newest first, one keyset page at a time on (createdAt, id) with the
 * (userId, createdAt) index: page 500 costs what page 1 costs, and jobs arriving meanwhile never
 * shift or repeat rows the way OFFSET pages would.
 */
export async function listHistory(userId: string, opts: { cursor?: string; limit: number }) {
  const db = getDb();
  const after = opts.cursor ? parseCursorPosition(opts.cursor) : null;
  const keyset = after
    ? Prisma.sql`AND ("createdAt", id) < (${after.createdAt}::timestamp(3), ${after.id})`
    : Prisma.empty;
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "AiRuntimeJob" WHERE "userId" = ${userId} ${keyset}
    ORDER BY "createdAt" DESC, id DESC LIMIT ${Prisma.raw(String(opts.limit + 1))}`;
  const page = ids.slice(0, opts.limit).map((r) => r.id);
  const rows = await db.aiRuntimeJob.findMany({
    where: { id: { in: page } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: { result: { select: { id: true } } },
  });
  const last = rows.at(-1);
  return { items: rows.map(toJobView), nextCursor: ids.length > opts.limit && last ? historyCursor(last) : null };
}
