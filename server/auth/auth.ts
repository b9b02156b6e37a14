import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { getDb } from "../db";
import { authSecret } from "./secret";
import { clearFailedSignIns, normalizeEmail, recordFailedSignIn, signInLockedUntil } from "./sign-in-throttle";
import { setting } from "../config";

const DAY_SECONDS = 86_400;
const SIGN_IN_PATH = "/sign-in/email";

/**
 * Without BETTER_AUTH_URL (zero-setup mode) the app answers on whatever local port it was
 * started on; better-auth then takes the origin from the request, for local hosts only, and
 * trusts that origin for its CSRF check.
 */
function baseURL() {
  const url = setting("BETTER_AUTH_URL");
  if (url) return url;
  return { allowedHosts: ["localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*"], fallback: "http://localhost:3000", protocol: "http" as const };
}

function createAuth() {
  return betterAuth({
    appName: "AI Job Runtime",
    secret: authSecret(),
    baseURL: baseURL(),
    database: prismaAdapter(getDb(), { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      // Accounts are provisioned (seed, admins); an open sign-up would create learners with no data.
      disableSignUp: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
    },
    session: {
      // Database sessions, read on every request (no cookie cache): sign-out and expiry take
      // effect at once. Active sessions are extended at most once a day.
      expiresIn: 7 * DAY_SECONDS,
      updateAge: DAY_SECONDS,
    },
    user: {
      additionalFields: {
        role: { type: ["learner", "admin"], required: false, defaultValue: "learner", input: false },
        // Set by `npm run admin:create` (one-time password); read by the procedure ladder and the page guards.
        mustChangePassword: { type: "boolean", required: false, defaultValue: false, input: false },
      },
    },
    // Per IP and path, stored in the database so every app instance shares the counts; the
    // per-account failure limit below is what stops password guessing from many IPs.
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      customRules: { [SIGN_IN_PATH]: { window: 60, max: setting("AUTH_SIGN_IN_PER_IP_PER_MINUTE") } },
    },
    telemetry: { enabled: false },
    // Explicit, because better-auth turns its origin check off when NODE_ENV is "test": the
    // tests must exercise the same CSRF defence as production.
    advanced: { disableOriginCheck: false, disableCSRFCheck: false },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = normalizeEmail(ctx.body?.email);
        if (!email) return;
        const until = await signInLockedUntil(email);
        if (until) {
          throw new APIError("TOO_MANY_REQUESTS", {
            code: "SIGN_IN_LOCKED",
            message: `Too many failed sign-ins for this account; try again after ${until.toISOString()}`,
          });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        const returned = ctx.context.returned;
        if (ctx.path === SIGN_IN_PATH) {
          const email = normalizeEmail(ctx.body?.email);
          if (email && isAPIError(returned)) {
            if (returned.statusCode === 401) await recordFailedSignIn(email);
          } else if (email) {
            await clearFailedSignIns(email);
          }
        }
        // The session token lives in the http-only cookie only: answers that would hand it to
        // page scripts (sign-in, get-session) go out without it.
        const withoutToken = stripSessionToken(returned);
        if (withoutToken !== returned) return ctx.json(withoutToken as Record<string, unknown>);
      }),
    },
  });
}

function stripSessionToken(value: unknown): unknown {
  if (!value || typeof value !== "object" || isAPIError(value) || value instanceof Response) return value;
  const body = value as Record<string, unknown>;
  const session = body.session as Record<string, unknown> | null | undefined;
  if (!("token" in body) && !(session && typeof session === "object" && "token" in session)) return value;
  const { token: _token, ...rest } = body;
  if (session && typeof session === "object") {
    const { token: _sessionToken, ...sessionRest } = session;
    return { ...rest, session: sessionRest };
  }
  return rest;
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as { __auth?: Auth };

/** Created on first use, like the Prisma client, so builds and imports need no database or secret. */
export function getAuth(): Auth {
  globalForAuth.__auth ??= createAuth();
  return globalForAuth.__auth;
}
