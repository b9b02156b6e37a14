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
  /** A bulk action's scope changed between its preview and its confirmation. */
  SCOPE_CHANGED: { status: 409, trpc: "CONFLICT" },
  INVALID_SCHEMA: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  /** A well-formed request names something that does not exist (a platform API activity item's knowledge point). */
  UNKNOWN_REFERENCE: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  /** The email belongs to another account (platform API learner upsert). */
  EMAIL_IN_USE: { status: 409, trpc: "CONFLICT" },
  /** Too many calls with one key (platform API); details.retryAfterSeconds, and a Retry-After header. */
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  /** A learner's job-creation quota is used up; details say which limit and when it resets. */
  QUOTA_EXCEEDED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
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
