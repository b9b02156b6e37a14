import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { getReserveDb } from "../db-reserve";
import { authSecret } from "./secret";
import { cleanDisplayName, refuseUnstorableBody } from "./input-guard";
import { appConfig, setting, webSecurityConfig } from "../config";
import { clientIp } from "./client-ip";
import { rateLimitStorage } from "./rate-limit-storage";
import { admitSignIn, normalizeEmail, settleSignIn } from "./sign-in-throttle";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./password-policy";
import { admitNewUser, settleNewUser, SSO_PROVIDER_ID, ssoPlugins } from "./sso";
import { decideSsoIdentity } from "./sso-gate";

const DAY_SECONDS = 86_400;
const SIGN_IN_PATH = "/sign-in/email";
const SIGN_UP_PATH = "/sign-up/email";
const CHANGE_PASSWORD_PATH = "/change-password";

/**
 * Without BETTER_AUTH_URL (zero-setup mode) the app is reached at localhost or 127.0.0.1 on its
 * own port; better-auth takes the origin from the request among exactly those two and trusts only
 * them for its CSRF check. Never `localhost:*`: any other local port (another dev server, a page
 * a local tool serves) would then be a trusted origin able to post sign-ins and sign-outs.
 */
export function baseURL() {
  const url = setting("BETTER_AUTH_URL");
  if (url) return url;
  const port = appConfig.port;
  return {
    allowedHosts: [`localhost:${port}`, `127.0.0.1:${port}`],
    fallback: `http://localhost:${port}`,
    protocol: "http" as const,
  };
}

function createAuth() {
  return betterAuth({
    appName: "AI Job Runtime",
    secret: authSecret(),
    baseURL: baseURL(),
    database: prismaAdapter(getReserveDb(), { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      // Open only when SIGNUP_MODE=open: the user.create hook below asks the sign-up policy.
      disableSignUp: false,
      // The one password policy (password-policy.ts): sign-up, change-password and reset too.
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
    },
    plugins: ssoPlugins(),
    account: {
      // Trusted only so that every link attempt reaches user.validateUserInfo below, which reads
      // email_verified itself and decides (audited, with the app's own codes) by the table in
      // docs/security.md; untrusted, better-auth would refuse an unverified link before it silently.
      accountLinking: { enabled: true, trustedProviders: [SSO_PROVIDER_ID], requireLocalEmailVerified: false },
    },
    session: {
      // Database sessions, read on every request (no cookie cache): sign-out and expiry take
      // effect at once. Active sessions are extended at most once a day.
      expiresIn: 7 * DAY_SECONDS,
      updateAge: DAY_SECONDS,
    },
    user: {
      // Every create, link and returning sign-in of a provider identity (sso-gate.ts).
      validateUserInfo: async ({ user, source }) => {
        if (source.method !== "oauth") return undefined;
        return decideSsoIdentity({
          action: source.action,
          userId: source.action === "create-user" ? null : typeof user.id === "string" ? user.id : null,
          emailVerified: user.emailVerified,
          profile: source.oauth?.profile ?? {},
        });
      },
      additionalFields: {
        role: { type: ["learner", "admin"], required: false, defaultValue: "learner", input: false },
        // Set by `npm run admin:create` (one-time password); read by the procedure ladder and the page guards.
        mustChangePassword: { type: "boolean", required: false, defaultValue: false, input: false },
        // The learner's language (zh-CN or en), saved by account.setLocale; null until they choose.
        locale: { type: "string", required: false, input: false },
      },
    },
    // Per IP and path, stored in the database so every app instance shares the counts, decided by
    // one upsert (rate-limit-storage.ts); the sign-in throttle in the hooks below is what stops
    // password guessing at one account.
    rateLimit: {
      enabled: true,
      customStorage: rateLimitStorage,
      window: 60,
      max: 100,
      customRules: { [SIGN_IN_PATH]: { window: 60, max: webSecurityConfig.signInPerIpPerMinute } },
    },
    telemetry: { enabled: false },
    // Explicit, because better-auth turns its origin check off when NODE_ENV is "test": the
    // tests must exercise the same CSRF defence as production.
    advanced: { disableOriginCheck: false, disableCSRFCheck: false },
    databaseHooks: {
      user: {
        create: {
          before: async (user, ctx) => {
            await admitNewUser(user, ctx?.path);
            return cleanDisplayName(user);
          },
          after: async (user, ctx) => settleNewUser(user, ctx?.path),
        },
        update: { before: async (user) => cleanDisplayName(user) },
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        refuseUnstorableBody(ctx.body);
        // The SSO callback's parameters come in the query: the same rule before any lookup.
        refuseUnstorableBody(ctx.query);
        // Before the password is hashed: a refused sign-up costs nothing.
        if (ctx.path === SIGN_UP_PATH) await admitNewUser({ email: normalizeEmail(ctx.body?.email) }, ctx.path);
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = normalizeEmail(ctx.body?.email);
        if (!email) return;
        const admission = await admitSignIn(email, clientIp(ctx.headers ?? new Headers()));
        if (admission.lockedUntil) {
          throw new APIError("TOO_MANY_REQUESTS", {
            code: "SIGN_IN_LOCKED",
            message: `Too many failed sign-ins from here for this account; try again after ${admission.lockedUntil.toISOString()}`,
          });
        }
        if (admission.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, admission.delayMs));
      }),
      after: createAuthMiddleware(async (ctx) => {
        const returned = ctx.context.returned;
        if (ctx.path === SIGN_IN_PATH) {
          // Only reached when the before hook admitted (and counted) the attempt.
          const email = normalizeEmail(ctx.body?.email);
          if (email) {
            const outcome = !isAPIError(returned)
              ? "success"
              : returned.statusCode === 401
                ? "wrong-password"
                : "not-checked";
            await settleSignIn(email, clientIp(ctx.headers ?? new Headers()), outcome);
          }
        }
        // better-auth's own change-password ends a one-time password as account.changePassword does.
        if (ctx.path === CHANGE_PASSWORD_PATH && !isAPIError(returned) && ctx.context.session?.user.id)
          await getReserveDb().user.update({
            where: { id: ctx.context.session.user.id },
            data: { mustChangePassword: false },
          });
        // The session token lives in the http-only cookie only: answers that would hand it to
        // page scripts (sign-in, get-session, list-sessions) go out without it.
        const withoutToken = stripSessionTokens(returned);
        if (withoutToken !== returned) return ctx.json(withoutToken as Record<string, unknown>);
        return undefined;
      }),
    },
  });
}

/** Removes every `token` of a session (top level, `session.token`, or a list of sessions). */
export function stripSessionTokens(value: unknown): unknown {
  if (!value || typeof value !== "object" || isAPIError(value) || value instanceof Response) return value;
  if (Array.isArray(value)) {
    return value.some((item) => item && typeof item === "object" && "token" in item)
      ? value.map((item) => stripSessionTokens(item))
      : value;
  }
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
