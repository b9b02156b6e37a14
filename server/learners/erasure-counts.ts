/**
 * What an erasure counts, by kind: the rows it removed, and the jobs it cancelled in flight. The
 * erase answer's `counts` is a closed object of exactly these (server/platform/schemas.ts), and
 * eraseLearner fills every one (tests/learners/erase.test.ts checks the keys).
 */
export const ERASURE_COUNT_KINDS = [
  "webhookDeliveries",
  "jobUsage",
  "usageDays",
  "usageHours",
  "flashcardMarks",
  "reviewLogs",
  "reviewCards",
  "nextActionTicks",
  "jobs",
  "snapshots",
  "quizAttempts",
  "studySessions",
  "knowledgePoints",
  "materials",
  "quotaCounters",
  "quotaOverrides",
  "credentials",
  "consent",
  "sessions",
  "signInMethods",
  "invitations",
  "verifications",
  "signInCounters",
  "cancelledInFlight",
] as const;
export type ErasureCountKind = (typeof ERASURE_COUNT_KINDS)[number];
export type ErasureCounts = Record<ErasureCountKind, number>;
