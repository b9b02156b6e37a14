import type { DbOrTx as Tx } from "../db";
import { ratingName } from "../review/fsrs";

/**
 * The parts of a learner's export (docs/data-rights.md), in the order they are written. A list
 * is read a page at a time, each page one short statement of its own: `take` rows after the last
 * row of the page before (`after`, a keyset on `keys`, an order made total by a unique last key),
 * so an export holds one page in memory and no connection between pages whatever the learner's
 * size, and a row added or removed meanwhile never shifts another row into a second page or out
 * of all of them. `pageSize` is smaller where rows can be large (texts, outputs). `shape` turns a
 * page as read into what is written (it may add to or leave out rows; paging follows the rows
 * read). A new kind of data is one more entry.
 */
type Page<Row> = {
  key: string;
  pageSize: number;
  keys: (keyof Row & string)[];
  page: (tx: Tx, userId: string, after: object, take: number) => Promise<Row[]>;
  shape?: (tx: Tx, userId: string, rows: Row[]) => Promise<unknown[]> | unknown[];
};

/**
 * The rows after `last` in the order of `keys` (a Prisma `where` fragment): (a > x) or (a = x and
 * b > y) or …; everything when there is no last row yet.
 */
export function afterRow(keys: string[], last: Record<string, unknown> | null): object {
  if (!last) return {};
  return {
    OR: keys.map((key, i) => ({
      ...Object.fromEntries(keys.slice(0, i).map((k) => [k, last[k]])),
      [key]: { gt: last[key] },
    })),
  };
}
export type ExportSection = { key: string; one: (tx: Tx, userId: string) => Promise<unknown> } | Page<never>;

/** A paged section, typed by its rows (the list below holds them all as one type). */
const paged = <Row>(section: Page<Row>) => section as unknown as Page<never>;

const SMALL = 500;
const LARGE = 5;

const big = (v: bigint) => v.toString();

export const EXPORT_SECTIONS: ExportSection[] = [
  paged({
    key: "sessions",
    pageSize: SMALL,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.session.findMany({
        where: { userId, ...after },
        select: { id: true, createdAt: true, updatedAt: true, expiresAt: true, ipAddress: true, userAgent: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    // The id orders the pages only: it is never exported.
    shape: (_tx, _userId, rows) => rows.map(({ id: _id, ...session }) => session),
  }),
  {
    key: "consent",
    one: (tx, userId) =>
      tx.aiConsent.findUnique({
        where: { userId },
        select: { granted: true, apiKeyMode: true, grantedAt: true, revokedAt: true, updatedAt: true },
      }),
  },
  paged({
    key: "credentials",
    pageSize: SMALL,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.userCredential.findMany({
        where: { userId, ...after },
        select: { id: true, provider: true, last4: true, createdAt: true, updatedAt: true, deletedAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "materials",
    pageSize: LARGE,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.material.findMany({
        where: { userId, ...after },
        select: { id: true, externalId: true, title: true, content: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    shape: (_tx, _userId, rows) => rows.map(({ content, ...m }) => ({ ...m, text: content })),
  }),
  paged({
    key: "knowledgePoints",
    pageSize: SMALL,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.knowledgePoint.findMany({
        where: { userId, ...after },
        select: { id: true, externalId: true, materialId: true, title: true, description: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "quizAttempts",
    pageSize: SMALL,
    keys: ["answeredAt", "id"],
    page: (tx, userId, after, take) =>
      tx.quizAttempt.findMany({
        where: { userId, ...after },
        select: {
          id: true,
          externalId: true,
          knowledgePointId: true,
          question: true,
          correct: true,
          selfMarked: true,
          answeredAt: true,
          sourceJobId: true,
        },
        orderBy: [{ answeredAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "pendingAnswers",
    pageSize: SMALL,
    keys: ["answeredAt", "id"],
    page: (tx, userId, after, take) =>
      tx.pendingAnswer.findMany({
        where: { userId, ...after },
        select: {
          id: true,
          knowledgePointId: true,
          sourceJobId: true,
          itemIndex: true,
          question: true,
          response: true,
          answeredAt: true,
        },
        orderBy: [{ answeredAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "studySessions",
    pageSize: SMALL,
    keys: ["startedAt", "id"],
    page: (tx, userId, after, take) =>
      tx.studySession.findMany({
        where: { userId, ...after },
        select: { id: true, externalId: true, materialId: true, startedAt: true, minutes: true, sourceJobId: true },
        orderBy: [{ startedAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "flashcardMarks",
    pageSize: SMALL,
    keys: ["jobId", "cardIndex"],
    page: (tx, userId, after, take) =>
      tx.flashcardMark.findMany({
        where: { userId, ...after },
        select: { jobId: true, cardIndex: true, createdAt: true },
        orderBy: [{ jobId: "asc" }, { cardIndex: "asc" }],
        take,
      }),
  }),
  paged({
    key: "nextActionTicks",
    pageSize: SMALL,
    keys: ["jobId", "actionIndex"],
    page: (tx, userId, after, take) =>
      tx.nextActionTick.findMany({
        where: { userId, ...after },
        select: { jobId: true, actionIndex: true, createdAt: true },
        orderBy: [{ jobId: "asc" }, { actionIndex: "asc" }],
        take,
      }),
  }),
  paged({
    // Spaced-repetition cards with their FSRS state and every rating (a card's log is short).
    key: "reviewCards",
    pageSize: 50,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.reviewCard.findMany({
        where: { userId, ...after },
        omit: { userId: true },
        include: { logs: { omit: { userId: true, cardId: true }, orderBy: { reviewedAt: "asc" } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    // A rating is stored as its FSRS grade (1–4) and exported by its name, as the API takes it.
    shape: (_tx, _userId, cards) =>
      cards.map((c) => ({ ...c, logs: c.logs.map((l) => ({ ...l, rating: ratingName(l.rating) })) })),
  }),
  paged({
    // Generated cards the learner deleted (tombstones): their identity and when.
    key: "deletedCards",
    pageSize: SMALL,
    keys: ["sourceKey"],
    page: (tx, userId, after, take) =>
      tx.reviewCardTombstone.findMany({
        where: { userId, ...after },
        omit: { userId: true },
        orderBy: [{ sourceKey: "asc" }],
        take,
      }),
  }),
  paged({
    // The learner's answer to each generated deck: added to Review (with what it added, updated, skipped) or not now.
    key: "reviewDecks",
    pageSize: SMALL,
    keys: ["jobId"],
    page: (tx, userId, after, take) =>
      tx.reviewDeck.findMany({
        where: { userId, ...after },
        omit: { userId: true },
        orderBy: [{ jobId: "asc" }],
        take,
      }),
  }),
  paged({
    // Each daily review digest: the local day, sent or failed, attempts and the last error.
    key: "digestSends",
    pageSize: SMALL,
    keys: ["day"],
    page: (tx, userId, after, take) =>
      tx.digestSend.findMany({
        where: { userId, ...after },
        omit: { userId: true },
        orderBy: [{ day: "asc" }],
        take,
      }),
  }),
  paged({
    key: "snapshots",
    pageSize: LARGE,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.snapshot.findMany({
        where: { userId, ...after },
        select: { id: true, targetType: true, targetId: true, contentHash: true, content: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
  }),
  paged({
    key: "jobs",
    pageSize: LARGE,
    keys: ["createdAt", "id"],
    page: (tx, userId, after, take) =>
      tx.aiRuntimeJob.findMany({
        where: { userId, ...after },
        // The lease and queue's own bookkeeping says nothing about the learner.
        omit: {
          lockedByKeyId: true,
          lockedBy: true,
          lockedAt: true,
          lockUntil: true,
          leaseCheckAt: true,
          queueTurn: true,
          queueSeq: true,
          traceparent: true,
          inputHash: true,
          userId: true,
          credentialId: true,
        },
        include: {
          result: { omit: { jobId: true, outputHash: true, resultIdempotencyKey: true } },
          rejections: { omit: { jobId: true }, orderBy: { attemptNo: "asc" } },
          events: { omit: { jobId: true, actorId: true }, orderBy: { id: "asc" } },
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    shape: async (tx, userId, jobs) => {
      const usage = await tx.jobUsage.findMany({
        where: { userId, jobId: { in: jobs.map((j) => j.id) } },
        omit: { userId: true },
        orderBy: { createdAt: "asc" },
      });
      return jobs.map((j) => ({
        ...j,
        rejections: j.rejections.map((r) => ({ ...r, id: big(r.id) })),
        events: j.events.map((e) => ({ ...e, id: big(e.id) })),
        usage: usage.filter((u) => u.jobId === j.id),
      }));
    },
  }),
  paged({
    // Usage of jobs that retention has already pruned (JobUsage outlives them).
    key: "usageOfPrunedJobs",
    pageSize: SMALL,
    keys: ["createdAt", "jobId", "attemptNo"],
    page: (tx, userId, after, take) =>
      tx.jobUsage.findMany({
        where: { userId, ...after },
        omit: { userId: true },
        orderBy: [{ createdAt: "asc" }, { jobId: "asc" }, { attemptNo: "asc" }],
        take,
      }),
    shape: async (tx, userId, usage) => {
      const kept = await tx.aiRuntimeJob.findMany({
        where: { userId, id: { in: [...new Set(usage.map((u) => u.jobId))] } },
        select: { id: true },
      });
      const live = new Set(kept.map((j) => j.id));
      return usage.filter((u) => !live.has(u.jobId));
    },
  }),
  {
    key: "quota",
    one: async (tx, userId) => ({
      usage: await tx.quotaUsage.findMany({
        where: { userId },
        omit: { userId: true },
        orderBy: { windowStart: "asc" },
      }),
      overrides: await tx.quotaLimit.findMany({
        where: { userId },
        select: { metric: true, period: true, allowed: true, updatedAt: true },
      }),
    }),
  },
];
