import { initTRPC, TRPCError } from "@trpc/server";
import { AppError, isAppError, isDatabaseUnavailable, unavailable } from "../errors";
import { unstorableDetails } from "../security/storable-text";
import { getSession, type Session } from "../auth/session";
import { requestLocale, type Locale } from "../i18n/locales";
import { describeError, toTRPCError } from "./errors";

/**
 * The tRPC context is the session and nothing else: procedures reach the database through the
 * domain services. A Runtime's bearer key means nothing here (Runtimes only speak /internal/runtime).
 */
export type Context = {
  session: Session | null;
  /** The language the request resolved to (saved choice, cookie, Accept-Language): new jobs' language when none is saved. */
  locale?: Locale;
};

/**
 * A database too busy or unreachable to look the session up is 503 UNAVAILABLE here as in the
 * procedures (the route adds Retry-After), not tRPC's 500 for a context that failed.
 */
export async function createContext({
  headers,
  known,
}: {
  headers: Headers;
  /** The session the route already looked up (a large body's caller), so it is looked up once. */
  known?: Session | null;
}): Promise<Context> {
  let session: Session | null;
  try {
    session = known !== undefined ? known : await getSession(headers);
  } catch (e) {
    if (!isDatabaseUnavailable(e)) throw e;
    console.error("[trpc] database unavailable for the session:", (e as { message?: string }).message ?? "");
    throw toTRPCError(unavailable());
  }
  return { session, locale: requestLocale(headers, session?.user.locale) };
}

const t = initTRPC.context<Context>().create({
  // Stacks never leave the server, in development either.
  isDev: false,
  errorFormatter({ shape, error }) {
    const { appCode, httpStatus, message, details } = describeError(error);
    return {
      code: shape.code,
      message,
      data: {
        code: shape.data.code,
        httpStatus,
        appCode,
        path: shape.data.path,
        ...(details === undefined ? {} : { details }),
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Domain errors thrown by services become tRPC errors with the code the shared table gives them;
 * a database too busy or unreachable to answer in time is 503 UNAVAILABLE (the route adds Retry-After).
 */
const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) throw toTRPCError(result.error.cause);
  if (!result.ok && isDatabaseUnavailable(result.error.cause ?? result.error)) {
    const cause = result.error.cause as { code?: string; message?: string } | undefined;
    console.error("[trpc] database unavailable:", cause?.code ?? "", cause?.message ?? "");
    throw toTRPCError(unavailable(result.error.cause ?? result.error));
  }
  return result;
});

/**
 * Every procedure's raw input, before its schema: text PostgreSQL cannot store (NUL, lone
 * surrogates) is a 400 naming the field, so no procedure can half-apply a write and then fail.
 */
const refuseUnstorableInput = t.middleware(async ({ getRawInput, next }) => {
  const bad = unstorableDetails(await getRawInput());
  if (bad.length) throw new AppError("INVALID_REQUEST", `${bad[0]!.path} ${bad[0]!.message}`, bad);
  return next();
});

export const publicProcedure = t.procedure.use(mapAppErrors).use(refuseUnstorableInput);

/** Signed in, even with a one-time password still to replace: only the password change uses it. */
export const sessionProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
  return next({ ctx: { session: ctx.session, user: ctx.session.user } });
});

/**
 * Signed in with a password of their own, whatever the role: a learner, or an admin on their own
 * learner page (/ links admins to the console). Data procedures scope every read and write to
 * ctx.user.id, so an admin here sees only their own jobs; every learner's jobs are admin.*.
 */
export const userProcedure = sessionProcedure.use(({ ctx, next }) => {
  if (ctx.user.mustChangePassword)
    throw toTRPCError(new AppError("PASSWORD_CHANGE_REQUIRED", "change the one-time password first"));
  return next();
});

/** Admins only; the /admin layout checks the same role before rendering. */
export const adminProcedure = userProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "admins only" });
  return next({ ctx: { ...ctx, user: { ...ctx.user, role: "admin" as const } } });
});
