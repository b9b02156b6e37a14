import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { hasForgottenSql, hasOverdueSql, learnerFigureSql, learnerStats, type LearnerStats } from "./learner-stats";
import type { LearnerSort } from "./learner-sorts";
import { learnerMastery, type LearnerMastery } from "./learner-mastery";
import type { Locale } from "../i18n/locales";

/** A learner's invitation as the console shows it; "none": the account was not made by an invitation. */
export type InvitationStateLabel = "pending" | "accepted" | "expired" | "revoked" | "none";

export type LearnerRow = {
  /** null while only invited (no account yet). */
  userId: string | null;
  email: string;
  name: string | null;
  createdAt: Date;
  invitationId: string | null;
  invitation: InvitationStateLabel;
  invitationExpiresAt: Date | null;
  /** How the account can sign in: "password", "sso"; none yet (e.g. made by the platform API). */
  signIn: ("password" | "sso")[];
  /** Study and cost figures (null for an invitation without an account). */
  stats: LearnerStats | null;
  /** Per knowledge point mastery (masteryOf), computed for the page's learners only. */
  mastery: LearnerMastery | null;
};

export type LearnerListOptions = {
  search?: string;
  page: number;
  pageSize: number;
  /** "newest" (default): by account or invitation date; else by that figure. */
  sort?: LearnerSort;
  /** Default: descending (most first, most recent first). */
  dir?: "asc" | "desc";
  /** Only learner accounts with this language. */
  language?: Locale;
  /** Only learners with a card overdue by more than a day. */
  overdue?: boolean;
  /** Only learners with a knowledge point being forgotten. */
  forgotten?: boolean;
};

/**
 * The console's Learners page: every learner account and every invitation not yet accepted, one
 * row per email, newest first, with a search over email and name. Sortable by any figure the
 * page shows (invitations without an account last) and filterable by language, "has overdue
 * cards" and "has forgotten points" (accounts only), in SQL. Offset paging: the list is a human's
 * (hundreds to thousands of rows), and the page wants "page n of m".
 */
export async function listLearners(opts: LearnerListOptions) {
  const at = now();
  const term = opts.search?.trim() ? `%${opts.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = Prisma.sql`
    WHERE (u.id IS NULL OR u.role = 'learner')
      ${term ? Prisma.sql`AND (coalesce(u.email, i.email) ILIKE ${term} OR u.name ILIKE ${term})` : Prisma.empty}
      ${opts.language ? Prisma.sql`AND u.locale = ${opts.language}` : Prisma.empty}
      ${opts.overdue ? Prisma.sql`AND u.id IS NOT NULL AND ${hasOverdueSql()}` : Prisma.empty}
      ${opts.forgotten ? Prisma.sql`AND u.id IS NOT NULL AND ${hasForgottenSql()}` : Prisma.empty}`;
  const dir = opts.dir === "asc" ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  const newest = Prisma.sql`coalesce(u."createdAt", i."createdAt") DESC, email`;
  const order =
    !opts.sort || opts.sort === "newest"
      ? Prisma.sql`coalesce(u."createdAt", i."createdAt") ${dir}, email`
      : Prisma.sql`CASE WHEN u.id IS NULL THEN NULL ELSE ${learnerFigureSql(opts.sort)} END ${dir} NULLS LAST, ${newest}`;
  const from = Prisma.sql`FROM "User" u FULL OUTER JOIN "Invitation" i ON i.email = u.email`;
  const db = getDb();
  const [rows, total] = await Promise.all([
    db.$queryRaw<
      {
        userId: string | null;
        email: string;
        name: string | null;
        createdAt: Date;
        invitationId: string | null;
        status: "pending" | "accepted" | "revoked" | null;
        expiresAt: Date | null;
        password: boolean;
        sso: boolean;
      }[]
    >`
      SELECT u.id AS "userId", coalesce(u.email, i.email) AS email, u.name,
             coalesce(u."createdAt", i."createdAt") AS "createdAt",
             i.id AS "invitationId", i.status::text AS status, i."expiresAt",
             EXISTS (SELECT 1 FROM "Account" a WHERE a."userId" = u.id AND a."providerId" = 'credential' AND a.password IS NOT NULL) AS password,
             EXISTS (SELECT 1 FROM "Account" a WHERE a."userId" = u.id AND a."providerId" <> 'credential') AS sso
      ${from} ${where}
      ORDER BY ${order}
      LIMIT ${opts.pageSize} OFFSET ${(opts.page - 1) * opts.pageSize}`,
    db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n ${from} ${where}`,
  ]);
  const ids = rows.flatMap((r) => (r.userId ? [r.userId] : []));
  const [stats, mastery] = await Promise.all([learnerStats(ids), learnerMastery(ids)]);
  const items: LearnerRow[] = rows.map((r) => ({
    stats: (r.userId && stats.get(r.userId)) || null,
    mastery: (r.userId && mastery.get(r.userId)) || null,
    userId: r.userId,
    email: r.email,
    name: r.name,
    createdAt: r.createdAt,
    invitationId: r.invitationId,
    invitation: !r.status
      ? "none"
      : r.status === "pending" && r.expiresAt && r.expiresAt.getTime() <= at.getTime()
        ? "expired"
        : r.status,
    invitationExpiresAt: r.expiresAt,
    signIn: [...(r.password ? (["password"] as const) : []), ...(r.sso ? (["sso"] as const) : [])],
  }));
  return { items, total: Number(total[0]?.n ?? 0), page: opts.page, pageSize: opts.pageSize };
}
