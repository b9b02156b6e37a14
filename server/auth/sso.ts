import { APIError } from "better-auth/api";
import { genericOAuth } from "better-auth/plugins";
import { AppError, isAppError } from "../errors";
import { oidcConfig } from "../config";
import { getDb } from "../db";
import { now } from "../clock";
import { recordAudit } from "../audit";
import { assertSignupAllowed } from "../account/signup-policy";

/** better-auth's id of the one OpenID Connect provider: its callback is /api/auth/callback/oidc. */
export const SSO_PROVIDER_ID = "oidc";

/** An AppError as better-auth's APIError (same status and code), so its callback redirects with `?error=CODE`. */
export function asAuthError(e: AppError): APIError {
  const status = e.status === 403 ? "FORBIDDEN" : e.status === 409 ? "CONFLICT" : "BAD_REQUEST";
  return new APIError(status, { code: e.code, message: e.message });
}

/** The generic-OAuth plugin for OIDC_ISSUER, or none (no "Sign in with …" button either). */
export function ssoPlugins() {
  const config = oidcConfig();
  if (!config) return [];
  return [
    genericOAuth({
      config: [
        {
          providerId: SSO_PROVIDER_ID,
          name: config.name,
          discoveryUrl: `${config.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
          clientId: config.clientId,
          clientSecret: config.clientSecret,
          scopes: ["openid", "email", "profile"],
          pkce: true,
          // The ID token must verify against the provider's published keys; no unverified decoding.
          requireIdTokenVerification: true,
        },
      ],
    }),
  ];
}

const isSsoPath = (path: string | undefined) => !!path && path.startsWith("/callback/");

async function liveInvitationId(email: string): Promise<string | null> {
  const row = await getDb().invitation.findFirst({
    where: { email, status: "pending", expiresAt: { gt: now() } },
    select: { id: true },
  });
  return row?.id ?? null;
}

/**
 * databaseHooks.user.create.before: every account better-auth itself would make (the open
 * sign-up form, a first SSO sign-in) passes SIGNUP_MODE and SIGNUP_EMAIL_DOMAINS first. In
 * invite mode, an SSO sign-in makes an account only for an email with a live invitation.
 */
export async function admitNewUser(user: { email?: unknown }, path: string | undefined) {
  const email = typeof user.email === "string" ? user.email.toLowerCase() : "";
  try {
    if (isSsoPath(path)) assertSignupAllowed(email, "sso", (await liveInvitationId(email)) !== null);
    else assertSignupAllowed(email, "sign-up");
  } catch (e) {
    throw isAppError(e) ? asAuthError(e) : e;
  }
}

/** databaseHooks.user.create.after: an SSO sign-in uses up the email's live invitation (audited). */
export async function settleNewUser(user: { id: string; email: string }, path: string | undefined) {
  if (!isSsoPath(path)) return;
  const invitationId = await liveInvitationId(user.email.toLowerCase());
  if (!invitationId) return;
  const taken = await getDb().invitation.updateMany({
    where: { id: invitationId, status: "pending" },
    data: { status: "accepted", acceptedAt: now(), userId: user.id },
  });
  if (taken.count)
    await recordAudit({
      actorId: user.id,
      action: "invitation.accept_sso",
      scope: { invitationId, userId: user.id },
      count: 1,
    });
}
