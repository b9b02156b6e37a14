import { getDb } from "../db";
import { recordAudit } from "../audit";
import { oidcConfig } from "../config";

/**
 * The one decision on who a single sign-on identity may become (docs/contract.md#learners-and-their-data "Trust at the edges";
 * the table in docs/security.md). better-auth calls it as `user.validateUserInfo` before it
 * creates a user, links a provider account to an existing user, or signs an existing link in;
 * a refusal is audited ("sso.refused", no email in it) and ends the callback on
 * /sign-in?error=CODE. better-auth fails closed: if this throws, the sign-in is refused too.
 */
export type SsoAction = "create-user" | "link-account" | "sign-in";
export type SsoRefusal =
  | "email-not-verified"
  | "admin"
  | "has-password"
  | "invited"
  | "linked-elsewhere"
  | "not-platform-learner"
  | "signed-in-before"
  | "other-issuer"
  | "unknown-issuer";

export const SSO_REFUSAL_CODES = {
  notVerified: "SSO_EMAIL_NOT_VERIFIED",
  notLinked: "ACCOUNT_NOT_LINKED",
} as const;

const MESSAGES = {
  SSO_EMAIL_NOT_VERIFIED:
    "your identity provider has not verified this email address; verify it there, then sign in again",
  ACCOUNT_NOT_LINKED: "an account with this email already exists and single sign-on cannot join it",
} as const;

/** `email_verified` as the provider sent it: only `true` (or the string "true" some providers send) counts. */
export const isVerifiedClaim = (value: unknown) => value === true || value === "true";

/** The `iss` claim of a stored ID token (the one the link was made with), or null. */
export function issuerOfIdToken(idToken: string | null | undefined): string | null {
  const payload = idToken?.split(".")[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { iss?: unknown };
    return typeof claims.iss === "string" ? claims.iss : null;
  } catch {
    return null;
  }
}

/** Why an existing user cannot be joined by a new SSO identity, or null when it can. */
async function linkRefusal(userId: string): Promise<SsoRefusal | null> {
  const user = await getDb().user.findUnique({
    where: { id: userId },
    select: {
      role: true,
      externalId: true,
      mustChangePassword: true,
      accounts: { select: { providerId: true, password: true } },
      invitation: { select: { id: true } },
      _count: { select: { sessions: true } },
    },
  });
  if (!user) return "not-platform-learner";
  if (user.role !== "learner" || user.mustChangePassword) return "admin";
  if (user.accounts.some((a) => a.password !== null || a.providerId === "credential")) return "has-password";
  if (user.invitation) return "invited";
  if (user.accounts.length > 0) return "linked-elsewhere";
  if (user.externalId === null) return "not-platform-learner";
  if (user._count.sessions > 0) return "signed-in-before";
  return null;
}

const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/**
 * A returning identity must come from the issuer its link was made with: the account key is the
 * `sub` alone, and two providers can hand out the same `sub`. The identity arriving now comes from
 * the configured OIDC_ISSUER (its ID token was verified against that issuer's keys); the link's
 * issuer is the `iss` of the ID token stored when it was made or last used; a link without a
 * readable one is refused (`unknown-issuer`).
 */
async function signInRefusal(userId: string, profile: Record<string, unknown>): Promise<SsoRefusal | null> {
  const sub = typeof profile.sub === "string" ? profile.sub : null;
  const current = oidcConfig()?.issuer;
  if (!sub || !current) return null;
  const account = await getDb().account.findFirst({
    where: { userId, providerId: "oidc", accountId: sub },
    select: { idToken: true },
  });
  const linked = issuerOfIdToken(account?.idToken);
  // Fails closed: a link whose issuer cannot be read (no stored ID token, or not one) may have
  // been made with any issuer, so it is not proof that this one made it.
  if (!linked) return "unknown-issuer";
  return sameIssuer(linked, current) ? null : "other-issuer";
}

export async function decideSsoIdentity(input: {
  action: SsoAction;
  userId: string | null;
  emailVerified: unknown;
  profile: Record<string, unknown>;
}): Promise<{ error: string; errorDescription: string } | undefined> {
  const { action, userId, profile } = input;
  let reason: SsoRefusal | null;
  if (action === "sign-in") reason = userId ? await signInRefusal(userId, profile) : null;
  else if (!isVerifiedClaim(input.emailVerified)) reason = "email-not-verified";
  else reason = action === "link-account" && userId ? await linkRefusal(userId) : null;
  if (!reason) return undefined;
  const code = reason === "email-not-verified" ? SSO_REFUSAL_CODES.notVerified : SSO_REFUSAL_CODES.notLinked;
  await recordAudit({
    actorId: "sso",
    action: "sso.refused",
    scope: { reason, attempted: action, userId: action === "create-user" ? null : userId },
    count: 0,
  });
  return { error: code, errorDescription: MESSAGES[code] };
}
