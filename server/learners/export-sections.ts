import type { DbOrTx as Tx } from "../db";

/**
 * The parts of a learner's export (docs/data-rights.md), in the order they are written. A list
 * is read a page at a time (`take` rows after `skip`, in an order made total by a unique last
 * key), so an export holds one page in memory whatever the learner's size; `pageSize` is smaller
 * where rows can be large (texts, outputs). `shape` turns a page as read into what is written (it
 * may add to or leave out rows; paging counts the rows read). A new kind of data is one more entry.
 */
type Page<Row> = {
  key: string;
  pageSize: number;
  page: (tx: Tx, userId: string, skip: number, take: number) => Promise<Row[]>;
  shape?: (tx: Tx, userId: string, rows: Row[]) => Promise<unknown[]> | unknown[];
};
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
    page: (tx, userId, skip, take) =>
      tx.session.findMany({
        where: { userId },
        select: { createdAt: true, updatedAt: true, expiresAt: true, ipAddress: true, userAgent: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
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
    page: (tx, userId, skip, take) =>
      tx.userCredential.findMany({
        where: { userId },
        select: { id: true, provider: true, last4: true, createdAt: true, updatedAt: true, deletedAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "materials",
    pageSize: LARGE,
    page: (tx, userId, skip, take) =>
      tx.material.findMany({
        where: { userId },
        select: { id: true, externalId: true, title: true, content: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
    shape: (_tx, _userId, rows) => rows.map(({ content, ...m }) => ({ ...m, text: content })),
  }),
  paged({
    key: "knowledgePoints",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.knowledgePoint.findMany({
        where: { userId },
        select: { id: true, externalId: true, materialId: true, title: true, description: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "quizAttempts",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.quizAttempt.findMany({
        where: { userId },
        select: {
          id: true,
          externalId: true,
          knowledgePointId: true,
          question: true,
          correct: true,
          answeredAt: true,
          sourceJobId: true,
        },
        orderBy: [{ answeredAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "studySessions",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.studySession.findMany({
        where: { userId },
        select: { id: true, externalId: true, materialId: true, startedAt: true, minutes: true, sourceJobId: true },
        orderBy: [{ startedAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "flashcardMarks",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.flashcardMark.findMany({
        where: { userId },
        select: { jobId: true, cardIndex: true, createdAt: true },
        orderBy: [{ jobId: "asc" }, { cardIndex: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "nextActionTicks",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.nextActionTick.findMany({
        where: { userId },
        select: { jobId: true, actionIndex: true, createdAt: true },
        orderBy: [{ jobId: "asc" }, { actionIndex: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    // Spaced-repetition cards with their FSRS state and every rating (a card's log is short).
    key: "reviewCards",
    pageSize: 50,
    page: (tx, userId, skip, take) =>
      tx.reviewCard.findMany({
        where: { userId },
        omit: { userId: true },
        include: { logs: { omit: { userId: true, cardId: true }, orderBy: { reviewedAt: "asc" } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    // The learner's answer to each generated deck: added to Review (with what it added, updated, skipped) or not now.
    key: "reviewDecks",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.reviewDeck.findMany({
        where: { userId },
        omit: { userId: true },
        orderBy: [{ decidedAt: "asc" }, { jobId: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    // Each daily review digest: the local day, sent or failed, attempts and the last error.
    key: "digestSends",
    pageSize: SMALL,
    page: (tx, userId, skip, take) =>
      tx.digestSend.findMany({
        where: { userId },
        omit: { userId: true },
        orderBy: [{ day: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "snapshots",
    pageSize: LARGE,
    page: (tx, userId, skip, take) =>
      tx.snapshot.findMany({
        where: { userId },
        select: { id: true, targetType: true, targetId: true, contentHash: true, content: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
        take,
      }),
  }),
  paged({
    key: "jobs",
    pageSize: LARGE,
    page: (tx, userId, skip, take) =>
      tx.aiRuntimeJob.findMany({
        where: { userId },
        omit: { lockedByKeyId: true, lockedBy: true, leaseCheckAt: true, userId: true, credentialId: true },
        include: {
          result: { omit: { jobId: true } },
          rejections: { omit: { jobId: true }, orderBy: { attemptNo: "asc" } },
          events: { omit: { jobId: true, actorId: true }, orderBy: { id: "asc" } },
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        skip,
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
    page: (tx, userId, skip, take) =>
      tx.jobUsage.findMany({
        where: { userId },
        omit: { userId: true },
        orderBy: [{ createdAt: "asc" }, { jobId: "asc" }, { attemptNo: "asc" }],
        skip,
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
