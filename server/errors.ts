/**
 * One domain error type. Services throw AppError(code, message); one table maps each code to
 * an HTTP status (Runtime routes) and a tRPC code (procedures).
 */
export const ERROR_CODES = {
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  CONSENT_REQUIRED: { status: 403, trpc: "FORBIDDEN" },
  /** Signed in with a one-time password (admin:create): only the password change is allowed. */
  PASSWORD_CHANGE_REQUIRED: { status: 403, trpc: "FORBIDDEN" },
  /** SIGNUP_MODE (or its domain list) does not let this account be made here. */
  SIGN_UP_CLOSED: { status: 403, trpc: "FORBIDDEN" },
  EMAIL_DOMAIN_NOT_ALLOWED: { status: 403, trpc: "FORBIDDEN" },
  /** A password outside the one policy (server/auth/password-policy.ts). */
  WEAK_PASSWORD: { status: 400, trpc: "BAD_REQUEST" },
  INVITATION_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  INVITATION_EXPIRED: { status: 410, trpc: "BAD_REQUEST" },
  INVITATION_REVOKED: { status: 410, trpc: "BAD_REQUEST" },
  INVITATION_USED: { status: 409, trpc: "CONFLICT" },
  /** An invitation for an email whose account already has a password. */
  ACCOUNT_EXISTS: { status: 409, trpc: "CONFLICT" },
  INVALID_CREDENTIALS: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_REQUEST: { status: 400, trpc: "BAD_REQUEST" },
  MALFORMED_JSON: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_PARAMS: { status: 400, trpc: "BAD_REQUEST" },
  UNKNOWN_ERROR_CODE: { status: 400, trpc: "BAD_REQUEST" },
  CANCEL_NOT_REQUESTED: { status: 400, trpc: "BAD_REQUEST" },
  CREDENTIAL_REQUIRED: { status: 400, trpc: "BAD_REQUEST" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "BAD_REQUEST" },
  /** A Runtime-Protocol header naming a major the app does not serve (server/runtime-api/protocol.ts). */
  UNSUPPORTED_PROTOCOL_VERSION: { status: 400, trpc: "BAD_REQUEST" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  JOB_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  TARGET_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  JOB_ALREADY_LOCKED: { status: 409, trpc: "CONFLICT" },
  JOB_NOT_LOCKABLE: { status: 409, trpc: "CONFLICT" },
  LOCK_LOST: { status: 409, trpc: "CONFLICT" },
  RESULT_ALREADY_EXISTS: { status: 409, trpc: "CONFLICT" },
  JOB_CANCELLED: { status: 409, trpc: "CONFLICT" },
  JOB_NOT_CANCELLABLE: { status: 409, trpc: "CONFLICT" },
  JOB_NOT_RERUNNABLE: { status: 409, trpc: "CONFLICT" },
  JOB_NOT_PENDING: { status: 409, trpc: "CONFLICT" },
  /** A review card was rated meanwhile (another tab, a repeated key): the rating was not applied twice. */
  REVIEW_ALREADY_RATED: { status: 409, trpc: "CONFLICT" },
  /** An answer in her own words was marked meanwhile (another tab): the mark was not applied twice. */
  ANSWER_ALREADY_MARKED: { status: 409, trpc: "CONFLICT" },
  /** A bulk action's scope changed between its preview and its confirmation. */
  SCOPE_CHANGED: { status: 409, trpc: "CONFLICT" },
  INVALID_SCHEMA: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  /** A well-formed request names something that does not exist (a platform API activity item's knowledge point). */
  UNKNOWN_REFERENCE: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  /** A platform review card already holds MAX_CARD_REVIEWS reviews: more would make every later call replay them. */
  CARD_LOG_FULL: { status: 409, trpc: "CONFLICT" },
  /** The email belongs to another account (platform API learner upsert). */
  EMAIL_IN_USE: { status: 409, trpc: "CONFLICT" },
  /** Too many calls with one key (platform API); details.retryAfterSeconds, and a Retry-After header. */
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  /** A learner's job-creation quota is used up; details say which limit and when it resets. */
  QUOTA_EXCEEDED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  /** The database is unreachable or too busy to answer in time: retry after RETRY_AFTER_SECONDS. */
  UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  /**
   * A write's commit was not confirmed within DB_COMMIT_TIMEOUT_MS (or its connection was lost
   * during it): it may or may not have happened. Retry after RETRY_AFTER_SECONDS with the same
   * idempotency key, which returns the first call's work if it was committed and does it once if not.
   */
  OUTCOME_UNKNOWN: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Postgres unique violation, through Prisma (P2002) or a raw query (23505). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; meta?: { code?: string }; cause?: { code?: string } } | null;
  const text = String((e as Error)?.message ?? "");
  return (
    err?.code === "P2002" ||
    err?.code === "23505" ||
    err?.meta?.code === "23505" ||
    err?.cause?.code === "23505" ||
    /unique constraint|23505/i.test(text)
  );
}

/** What a 503 UNAVAILABLE answer's Retry-After header says, in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The database could not do the work now, but may in a moment: unreachable or restarting
 * (P1001, P1017, connection errors), a primary lost or demoted in a failover (the connection cut,
 * 57P01–57P03, or a write refused by a standby: 25006), no pooled connection in time (P2024), an interactive
 * transaction past its deadline (P2028), a lock or statement timeout (55P03, 57014), a
 * serialization failure or deadlock (40001, 40P01), too many connections or out of resources
 * (53300 "too many clients", 53400, 53100, 53200), a connection failure (08xxx), a commit past the
 * app's deadline (server/db-deadline.ts). Every door answers these 503 with Retry-After, never
 * 500: UNAVAILABLE when the request changed nothing (its transaction rolled back), OUTCOME_UNKNOWN
 * when its commit may have happened (isOutcomeUnknown); either may be repeated with the same key.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  const seen = new Set<unknown>();
  const texts: string[] = [];
  const visit = (x: unknown, depth: number) => {
    if (!x || typeof x !== "object" || seen.has(x) || depth > 4) return;
    seen.add(x);
    const o = x as { code?: unknown; message?: unknown; originalCode?: unknown; meta?: unknown; cause?: unknown };
    texts.push(`${String(o.code ?? "")} ${String(o.originalCode ?? "")} ${String(o.message ?? "")}`);
    visit(o.meta, depth + 1);
    visit(o.cause, depth + 1);
    if (o.meta && typeof o.meta === "object") for (const v of Object.values(o.meta)) visit(v, depth + 1);
  };
  visit(e, 0);
  return UNAVAILABLE_PATTERN.test(texts.join(" | "));
}

const UNAVAILABLE_PATTERN =
  /\b(P1001|P1017|P2024|P2028|55P03|57014|40001|40P01|25006|57P01|57P02|57P03|53300|53400|53100|53200|08000|08001|08003|08004|08006|AJR_COMMIT_OUTCOME_UNKNOWN)\b|too many clients|remaining connection slots are reserved|commit outcome unknown|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|not queryable|server closed the connection|read-only transaction|the database system is (not yet accepting|in recovery)|terminating connection|timeout exceeded when trying to connect|DatabaseNotReachable|the database system is (starting|shutting)|lock timeout|canceling statement due to (lock|statement) timeout|Transaction already closed|Unable to start a transaction in the given time/i;

/** A commit the database did not confirm (server/db-deadline.ts's CommitOutcomeUnknown, through Prisma or not). */
export function isOutcomeUnknown(e: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (x: unknown, depth: number): boolean => {
    if (!x || typeof x !== "object" || seen.has(x) || depth > 4) return false;
    seen.add(x);
    const o = x as { code?: unknown; message?: unknown; meta?: unknown; cause?: unknown };
    if (o.code === "AJR_COMMIT_OUTCOME_UNKNOWN" || /commit outcome unknown/.test(String(o.message ?? ""))) return true;
    if (visit(o.meta, depth + 1) || visit(o.cause, depth + 1)) return true;
    return !!o.meta && typeof o.meta === "object" && Object.values(o.meta).some((v) => visit(v, depth + 1));
  };
  return visit(e, 0);
}

/** The domain error a door answers for isDatabaseUnavailable(e): OUTCOME_UNKNOWN for a commit not confirmed. */
export function unavailable(e?: unknown): AppError {
  if (e !== undefined && isOutcomeUnknown(e))
    return new AppError(
      "OUTCOME_UNKNOWN",
      `the write may or may not have been committed; retry after ${RETRY_AFTER_SECONDS} s with the same idempotency key`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  return new AppError("UNAVAILABLE", `the service is busy; retry after ${RETRY_AFTER_SECONDS} s`, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}
