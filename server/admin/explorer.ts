import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import type { JobStatus } from "../generated/prisma/enums";
import { type JobFilter, type JobSort } from "./filter-schema";
import { filterSql, searchBranches, statusGroupSql, statusGroups } from "./filters";
import { parseCursorPosition } from "../cursor";
import { statusList } from "../jobs/status-sql";

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

/** One branch of a page: a condition on the job row j, or one live status read from the queue table. */
type Branch = { cond: Prisma.Sql; lead?: Prisma.Sql; queued?: JobStatus };

/**
 * The page's SQL (exported so a test can EXPLAIN exactly what the explorer runs). A search, or a
 * status filter, is one page per branch, each read in order from its own index and merged: the
 * search's (see searchBranches), or the statuses' (see statusGroups) — each live status from the
 * queue table's (status, createdAt, jobId), failed and cancelled from the errors indexes,
 * succeeded in createdAt order. With a search, the status is checked on the search's rows.
 */
export async function explorerQuery(input: ExploreInput): Promise<Prisma.Sql> {
  const db = getDb();
  const { filter } = input;
  const groups = filter.status?.length && !filter.q ? statusGroups(filter.status) : [];
  const where = await filterSql(db, filter, { withoutSearch: true, withoutStatus: groups.length > 0 });
  const desc = input.sort === "createdAt_desc";
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const dir = Prisma.raw(desc ? "DESC" : "ASC");
  /** Keyset and order on one table's (createdAt, id) columns. */
  const keyset = (createdAt: Prisma.Sql, id: Prisma.Sql) =>
    after
      ? Prisma.sql`AND (${createdAt}, ${id}) ${Prisma.raw(desc ? "<" : ">")} (${after.createdAt}::timestamp(3), ${after.id})`
      : Prisma.empty;
  const orderOn = (createdAt: Prisma.Sql, id: Prisma.Sql) => Prisma.sql`${createdAt} ${dir}, ${id} ${dir}`;
  const order = orderOn(Prisma.sql`j."createdAt"`, Prisma.sql`j.id`);
  // The limit is inlined: a parameterised LIMIT can make a generic plan give up the index.
  const take = Prisma.raw(String(input.limit + 1));
  const page = ({ cond, lead, queued }: Branch) => {
    if (queued) {
      // The queue row's (createdAt, jobId) are the job's: its index gives the order, the job is read by id.
      const q = { createdAt: Prisma.sql`q."createdAt"`, id: Prisma.sql`q."jobId"` };
      return Prisma.sql`(SELECT j.* FROM "JobQueue" q JOIN "AiRuntimeJob" j ON j.id = q."jobId"
        WHERE q.status = ${statusList([queued])} AND j.status = q.status AND ${where} ${keyset(q.createdAt, q.id)}
        ORDER BY ${orderOn(q.createdAt, q.id)} LIMIT ${take})`;
    }
    return Prisma.sql`(SELECT j.* FROM "AiRuntimeJob" j WHERE ${where} AND ${cond} ${keyset(Prisma.sql`j."createdAt"`, Prisma.sql`j.id`)}
      ORDER BY ${lead ? Prisma.sql`${lead} ${dir}, ` : Prisma.empty}${order} LIMIT ${take})`;
  };
  const branches: Branch[] = filter.q
    ? await searchBranches(db, filter.q)
    : groups.length
      ? groups.flatMap((g) =>
          g.kind === "queue"
            ? g.statuses.map((s) => ({ cond: Prisma.sql`TRUE`, queued: s }))
            : [{ cond: statusGroupSql(g) }],
        )
      : [{ cond: Prisma.sql`TRUE` }];
  const source =
    branches.length === 1
      ? page(branches[0]!)
      : Prisma.sql`(SELECT * FROM (${Prisma.join(branches.map(page), " UNION ALL ")}) j ORDER BY ${order} LIMIT ${take})`;
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
  const groups = filter.status?.length && !filter.q ? statusGroups(filter.status) : [];
  const where = await filterSql(db, filter, { withoutSearch: true, withoutStatus: groups.length > 0 });
  const cap = Prisma.raw(String(COUNT_CAP + 1));
  // Disjoint branches (search, or status groups), each counted from its own index up to the cap.
  const branches = filter.q
    ? (await searchBranches(db, filter.q)).map((b) => b.cond)
    : groups.length
      ? groups.map(statusGroupSql)
      : [Prisma.sql`TRUE`];
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (${Prisma.join(
      branches.map((b) => Prisma.sql`(SELECT 1 FROM "AiRuntimeJob" j WHERE ${where} AND ${b} LIMIT ${cap})`),
      " UNION ALL ",
    )}) s`;
  const n = row?.n ?? 0;
  return { total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP };
}
