import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import type { JobStatus } from "../generated/prisma/enums";
import { type JobFilter, type JobSort } from "./filter-schema";
import { filterSql, searchBranches } from "./filters";
import { parseCursorPosition } from "../cursor";

/** Counting stops here: an exact count over millions of rows would cost more than the page. */
export const COUNT_CAP = 10_000;

export type ExplorerRow = {
  id: string;
  jobType: string;
  status: JobStatus;
  userId: string;
  userEmail: string | null;
  userName: string | null;
  /** The learner's language (User.locale); the console is English but shows what the learner reads. */
  userLocale: string | null;
  /** The language the job's text is produced in. */
  locale: string;
  targetType: string;
  targetId: string;
  priority: number;
  attemptNo: number;
  retryCount: number;
  maxRetryCount: number;
  errorCode: string | null;
  errorMessage: string | null;
  lockedBy: string | null;
  stage: string | null;
  progress: number;
  cancelRequested: boolean;
  idempotencyKey: string | null;
  retriedFromJobId: string | null;
  createdAt: Date;
  finishedAt: Date | null;
};

/** Keyset cursor: the last row's (createdAt, id), opaque to the client. */
export function encodeCursor(row: { createdAt: Date; id: string }) {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  // A forged cursor may carry a date JavaScript accepts and PostgreSQL does not (year 0, year 200000).
  return parseCursorPosition(Buffer.from(cursor, "base64url").toString());
}

export type ExploreInput = { filter: JobFilter; sort: JobSort; limit: number; cursor?: string };

/**
 * One page of jobs, newest (or oldest) first, after `cursor`. Keyset paging on (createdAt, id)
 * reads only the rows of the page from an index, wherever the page is; OFFSET would read and
 * discard every row before it.
 */
export async function exploreJobs(input: ExploreInput) {
  const rows = await getDb().$queryRaw<ExplorerRow[]>(await explorerQuery(input));
  const more = rows.length > input.limit;
  const items = more ? rows.slice(0, input.limit) : rows;
  const last = items.at(-1);
  return { items, nextCursor: more && last ? encodeCursor(last) : null };
}

/** The page's SQL (exported so a test can EXPLAIN exactly what the explorer runs). */
export async function explorerQuery(input: ExploreInput): Promise<Prisma.Sql> {
  const db = getDb();
  const where = await filterSql(db, input.filter, { withoutSearch: true });
  const desc = input.sort === "createdAt_desc";
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const keyset = after
    ? desc
      ? Prisma.sql`AND (j."createdAt", j.id) < (${after.createdAt}::timestamp(3), ${after.id})`
      : Prisma.sql`AND (j."createdAt", j.id) > (${after.createdAt}::timestamp(3), ${after.id})`
    : Prisma.empty;
  const order = desc ? Prisma.sql`j."createdAt" DESC, j.id DESC` : Prisma.sql`j."createdAt" ASC, j.id ASC`;
  // The limit is inlined: a parameterised LIMIT can make a generic plan give up the index.
  const take = Prisma.raw(String(input.limit + 1));
  const page = ({ cond, lead }: { cond: Prisma.Sql; lead?: Prisma.Sql }) =>
    Prisma.sql`(SELECT * FROM "AiRuntimeJob" j WHERE ${where} AND ${cond} ${keyset}
      ORDER BY ${lead ? Prisma.sql`${lead} ${Prisma.raw(desc ? "DESC" : "ASC")}, ` : Prisma.empty}${order} LIMIT ${take})`;
  // A search is one page per branch (each from its own index), merged; see searchBranches.
  const source = input.filter.q
    ? Prisma.sql`(SELECT * FROM (${Prisma.join((await searchBranches(db, input.filter.q)).map(page), " UNION ALL ")}) j ORDER BY ${order} LIMIT ${take})`
    : page({ cond: Prisma.sql`TRUE` });
  return Prisma.sql`
    SELECT j.id, j."jobType"::text AS "jobType", j.status::text AS status, j."userId", u.email AS "userEmail",
      u.name AS "userName", u.locale AS "userLocale",
      j.locale, j."targetType"::text AS "targetType", j."targetId", j.priority, j."attemptNo", j."retryCount", j."maxRetryCount",
      j."errorCode", left(j."errorMessage", 300) AS "errorMessage", j."lockedBy", j.stage, j.progress, j."cancelRequested",
      j."idempotencyKey", j."retriedFromJobId", j."createdAt", j."finishedAt"
    FROM ${source} j
    LEFT JOIN "User" u ON u.id = j."userId"
    ORDER BY ${order}`;
}

/** How many jobs the filter matches, counted up to COUNT_CAP + 1 (so "more than 10,000" is known). */
export async function countJobs(filter: JobFilter) {
  const db = getDb();
  const where = await filterSql(db, filter, { withoutSearch: true });
  const cap = Prisma.raw(String(COUNT_CAP + 1));
  const branches = filter.q ? (await searchBranches(db, filter.q)).map((b) => b.cond) : [Prisma.sql`TRUE`];
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (${Prisma.join(
      branches.map((b) => Prisma.sql`(SELECT 1 FROM "AiRuntimeJob" j WHERE ${where} AND ${b} LIMIT ${cap})`),
      " UNION ALL ",
    )}) s`;
  const n = row?.n ?? 0;
  return { total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP };
}
