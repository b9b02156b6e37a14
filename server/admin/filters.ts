import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";
import { AppError } from "../errors";
import { unstorableDetails } from "../security/storable-text";
import type { JobFilter } from "./filter-schema";

/**
 * Turns an explorer filter into one SQL condition over `"AiRuntimeJob" j`. Every branch is
 * an equality or range that an index serves (see the admin console migration): the explorer has
 * to stay fast over millions of rows, so no LIKE '%…%' and no function over a column.
 */
export async function filterSql(db: DbOrTx, f: JobFilter, opts: { withoutSearch?: boolean } = {}): Promise<Prisma.Sql> {
  const parts: Prisma.Sql[] = [];
  if (f.status?.length)
    parts.push(Prisma.sql`j.status IN (${Prisma.join(f.status.map((s) => Prisma.sql`${s}::"JobStatus"`))})`);
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
