import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { ZodError } from "zod";
import { AppError, ERROR_CODES, isAppError, type ErrorCode } from "../errors";
import { traceTag } from "../observability/tracing";

/** The one mapping from a domain error to a tRPC error, from the shared ERROR_CODES table. */
export function toTRPCError(e: AppError): TRPCError {
  return new TRPCError({ code: ERROR_CODES[e.code].trpc, message: e.message, cause: e });
}

/** What a client learns about a failed call: the domain code, the HTTP status, and details. */
export function describeError(error: TRPCError): {
  appCode: ErrorCode;
  httpStatus: number;
  message: string;
  details?: unknown;
} {
  const cause = error.cause;
  if (isAppError(cause)) {
    return {
      appCode: cause.code,
      httpStatus: cause.status,
      message: cause.message,
      ...(cause.details === undefined ? {} : { details: cause.details }),
    };
  }
  if (cause instanceof ZodError) {
    return {
      appCode: "INVALID_REQUEST",
      httpStatus: 400,
      message: "input does not match the procedure's schema",
      details: cause.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message })),
    };
  }
  if (error.code === "INTERNAL_SERVER_ERROR") {
    // Unknown errors: the log gets the cause, the client a generic message and no stack.
    console.error(`[trpc] unexpected error${traceTag()}:`, cause ?? error);
    return { appCode: "INTERNAL", httpStatus: 500, message: "internal error" };
  }
  // tRPC's own refusals (no session, wrong role, unknown procedure, wrong method) keep their status.
  const httpStatus = getHTTPStatusCodeFromError(error);
  const appCode =
    error.code in ERROR_CODES ? (error.code as ErrorCode) : httpStatus === 404 ? "NOT_FOUND" : "INVALID_REQUEST";
  return { appCode, httpStatus, message: error.message };
}
