import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";
import { AppError } from "../errors";
import { unstorableDetails } from "../security/storable-text";
import type { JobStatus } from "../generated/prisma/enums";
import { IN_FLIGHT_STATUSES } from "../jobs/constants";
import { statusList } from "../jobs/status-sql";
import type { JobFilter } from "./filter-schema";

/**
 * A status filter's statuses by the index that finds them (no index of the job row names its
 * status, so that a claim, a heartbeat and a result stay HOT updates):
 * - `queue`: in flight (pending, locked, running, expired), read from the queue table: one JobQueue
 *   row per job in flight, indexed by (status, createdAt, jobId);
 * - `errors`: failed and cancelled, whose every ending sets errorCode, read from the job row's
 *   partial indexes WHERE errorCode IS NOT NULL (with the status checked on the row: a job retried
 *   back to pending or one that succeeded may carry an errorCode too);
 * - `succeeded`: most jobs, read in createdAt order with the status checked on the row.
 * The groups are disjoint; each condition checks the row's own status, which is the truth.
 */
export type StatusGroup = { kind: "queue" | "errors" | "succeeded"; statuses: JobStatus[] };

export function statusGroups(statuses: readonly JobStatus[]): StatusGroup[] {
  const kindOf = (s: JobStatus): StatusGroup["kind"] =>
    IN_FLIGHT_STATUSES.includes(s) ? "queue" : s === "succeeded" ? "succeeded" : "errors";
  const unique = [...new Set(statuses)];
  return (["queue", "errors", "succeeded"] as const)
    .map((kind) => ({ kind, statuses: unique.filter((s) => kindOf(s) === kind) }))
    .filter((g) => g.statuses.length > 0);
}

/** One group's condition over `"AiRuntimeJob" j`. */
export function statusGroupSql(g: StatusGroup): Prisma.Sql {
  const list = statusList(g.statuses);
  if (g.kind === "queue")
    return Prisma.sql`j.status IN (${list}) AND j.id IN (SELECT q."jobId" FROM "JobQueue" q WHERE q.status IN (${list}))`;
  if (g.kind === "errors") return Prisma.sql`j.status IN (${list}) AND j."errorCode" IS NOT NULL`;
  return Prisma.sql`j.status IN (${list})`;
}

/** Any of the statuses, as one condition over `"AiRuntimeJob" j` (an OR of the groups). */
export function statusSql(statuses: readonly JobStatus[]): Prisma.Sql {
  const groups = statusGroups(statuses).map(statusGroupSql);
  return groups.length === 1 ? groups[0]! : Prisma.sql`((${Prisma.join(groups, ") OR (")}))`;
}

/**
 * Turns an explorer filter into one SQL condition over `"AiRuntimeJob" j`. Every branch is
 * an equality or range that an index serves (see the admin console migration): the explorer has
 * to stay fast over millions of rows, so no LIKE '%…%' and no function over a column. The
 * explorer leaves out the search and the status (`withoutSearch`, `withoutStatus`) to page them
 * as branches of their own.
 */
export async function filterSql(
  db: DbOrTx,
  f: JobFilter,
  opts: { withoutSearch?: boolean; withoutStatus?: boolean } = {},
): Promise<Prisma.Sql> {
  const parts: Prisma.Sql[] = [];
  if (f.status?.length && !opts.withoutStatus) parts.push(statusSql(f.status));
  if (f.jobType?.length)
    parts.push(Prisma.sql`j."jobType" IN (${Prisma.join(f.jobType.map((t) => Prisma.sql`${t}::"JobType"`))})`);
  if (f.user) parts.push(Prisma.sql`j."userId" IN (${Prisma.join(await userIds(db, f.user))})`);
  if (f.targetType) parts.push(Prisma.sql`j."targetType" = ${f.targetType}::"TargetType"`);
  if (f.targetId) parts.push(Prisma.sql`j."targetId" = ${f.targetId}`);
  if (f.errorCode) parts.push(Prisma.sql`j."errorCode" = ${f.errorCode}`);
  // GIN over JobRejection.rules serves the containment.
  if (f.rule)
    parts.push(Prisma.sql`j.id IN (SELECT r."jobId" FROM "JobRejection" r WHERE r.rules @> ARRAY[${f.rule}]::text[])`);
  if (f.runtimeId)
    parts.push(
      Prisma.sql`j.id IN (SELECT e."jobId" FROM "JobEvent" e WHERE e."actorId" = ${f.runtimeId} AND e."actorType" = 'runtime')`,
    );
  if (f.createdFrom) parts.push(Prisma.sql`j."createdAt" >= ${new Date(f.createdFrom)}::timestamp(3)`);
  if (f.createdTo) parts.push(Prisma.sql`j."createdAt" < ${new Date(f.createdTo)}::timestamp(3)`);
  if (f.q && !opts.withoutSearch)
    parts.push(
      Prisma.sql`(${Prisma.join(
        (await searchBranches(db, f.q)).map((b) => b.cond),
        ") OR (",
      )})`,
    );
  if (f.json) {
    const doc = JSON.stringify(nest(f.json.path, f.json.value));
    parts.push(
      f.json.in === "params"
        ? // The doc names a field, so only non-empty params can contain it: that lets the partial index serve.
          Prisma.sql`j.params @> ${doc}::jsonb AND j.params <> '{}'::jsonb`
        : Prisma.sql`j.id IN (SELECT r."jobId" FROM "AiRuntimeResult" r WHERE r.output @> ${doc}::jsonb)`,
    );
  }
  if (f.createdFrom && f.createdTo && Date.parse(f.createdFrom) >= Date.parse(f.createdTo))
    throw new AppError("INVALID_REQUEST", "createdFrom must be before createdTo");
  return parts.length ? Prisma.join(parts, " AND ") : Prisma.sql`TRUE`;
}

/**
 * The search box as disjoint conditions — the job id, an idempotency key, each user the text
 * may name (an id, or the user of an email) — each served by its own index (primary key,
 * idempotencyKey, userId + createdAt). The explorer runs them as separate branches of a UNION
 * ALL: ORed in one WHERE, the planner walks the createdAt index backwards over every row looking
 * for the few that match (2.7 s at 1M jobs). A user branch is ordered by userId first (`lead`):
 * only the (userId, createdAt) index gives that order, so the planner cannot pick the walk.
 */
export async function searchBranches(db: DbOrTx, q: string): Promise<{ cond: Prisma.Sql; lead?: Prisma.Sql }[]> {
  const users = [...new Set(await userIds(db, q))];
  const titled = await titledTargets(db, q);
  // Jobs on a titled material or topic, less those the id, key and user branches already have,
  // so the branches stay disjoint (UNION ALL would otherwise list a job twice).
  const notYet = Prisma.sql`j."userId" NOT IN (${Prisma.join(users)}) AND j.id <> ${q} AND j."idempotencyKey" IS DISTINCT FROM ${q}`;
  return [
    { cond: Prisma.sql`j.id = ${q}` },
    { cond: Prisma.sql`j."idempotencyKey" = ${q} AND j.id <> ${q}` },
    ...users.map((u) => ({
      cond: Prisma.sql`j."userId" = ${u} AND j.id <> ${q} AND j."idempotencyKey" IS DISTINCT FROM ${q}`,
      lead: Prisma.sql`j."userId"`,
    })),
    ...titled.map((t) => ({
      cond: Prisma.sql`j."targetType" = ${t.type}::"TargetType" AND j."targetId" IN (${Prisma.join(t.ids)}) AND ${notYet}`,
    })),
  ];
}

/** Names and titles matched by the search box, at most this many each (the rest: narrow the text). */
export const SEARCH_NAME_MATCHES = 50;

/** `%`, `_` and `\` typed in the box are themselves, not LIKE wildcards. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * An email names its user (emails are stored lower-case); anything else is taken as a user id
 * and as part of a learner's name. Names match as substrings, case-insensitively, so Chinese
 * names (no spaces between words, often searched by the surname alone: 李) are found as well as
 * Latin ones. The User table is read by a scan (its size is the number of learners, not of jobs;
 * pg_trgm would not help: its trigrams ignore CJK characters outside a UTF-8 ctype locale).
 */
async function userIds(db: DbOrTx, who: string): Promise<string[]> {
  if (who.includes("@")) {
    const rows = await db.user.findMany({ where: { email: who.toLowerCase() }, select: { id: true } });
    // No such user: an id no row can have keeps the SQL shape and matches nothing.
    return rows.length ? [who, ...rows.map((r) => r.id)] : [who];
  }
  const named = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "User" WHERE name ILIKE ${likeContains(who)} ORDER BY id LIMIT ${SEARCH_NAME_MATCHES}`;
  return [who, ...named.map((r) => r.id)];
}

/** Materials and knowledge points whose title contains the text (any script), as job targets. */
async function titledTargets(db: DbOrTx, text: string) {
  if (text.includes("@")) return [];
  const pattern = likeContains(text);
  const [materials, topics] = await Promise.all([
    db.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Material" WHERE title ILIKE ${pattern} ORDER BY id LIMIT ${SEARCH_NAME_MATCHES}`,
    db.$queryRaw<{ id: string }[]>`
      SELECT id FROM "KnowledgePoint" WHERE title ILIKE ${pattern} ORDER BY id LIMIT ${SEARCH_NAME_MATCHES}`,
  ]);
  return [
    { type: "material", ids: materials.map((r) => r.id) },
    { type: "knowledge_point", ids: topics.map((r) => r.id) },
  ].filter((t) => t.ids.length > 0);
}

/**
 * "a.b" + "5" → {"a":{"b":5}}; the value is JSON when it parses, else a string. A JSON value can
 * spell a NUL or a lone surrogate ("\u0000") that jsonb refuses: that is a 400, not a 500.
 */
function nest(path: string, raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  const bad = unstorableDetails(value);
  if (bad.length)
    throw new AppError(
      "INVALID_REQUEST",
      `json.value ${bad[0]!.message}`,
      bad.map((b) => ({ ...b, path: "filter.json.value" })),
    );
  return path.split(".").reduceRight<unknown>((acc, key) => ({ [key]: acc }), value);
}
