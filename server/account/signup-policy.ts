import { z } from "zod";
import { AppError } from "../errors";
import { signupConfig } from "../config";

/** How an account is being made: the open sign-up form, an admin's invitation, or single sign-on. */
export type SignupVia = "sign-up" | "invitation" | "sso";

const emailSchema = z.email().max(254);

/** The email as stored (trimmed, lower case), or an INVALID_REQUEST naming the bad value. */
export function normalizedEmail(raw: unknown): string {
  const parsed = typeof raw === "string" ? emailSchema.safeParse(raw.trim().toLowerCase()) : null;
  if (!parsed?.success)
    throw new AppError("INVALID_REQUEST", `not an email address: ${JSON.stringify(String(raw).slice(0, 100))}`);
  return parsed.data;
}

export function emailDomainAllowed(email: string): boolean {
  const domains = signupConfig.emailDomains;
  if (domains.length === 0) return true;
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return domains.includes(domain);
}

/**
 * Whether SIGNUP_MODE lets a NEW account be made this way (docs/operations.md):
 * - closed: no new account at all (existing accounts still sign in, SSO still links to them);
 * - invite: only through an admin's invitation (an SSO sign-in makes an account only for an email
 *   with a live invitation, which it then uses up: see sso.ts);
 * - open: anyone, by the sign-up form or SSO; invitations work too.
 * SIGNUP_EMAIL_DOMAINS limits the self-service ways (sign-up, SSO), never an admin's invitation.
 * Throws the AppError that says why not; `hasInvitation` is for SSO in invite mode.
 */
export function assertSignupAllowed(email: string, via: SignupVia, hasInvitation = false) {
  const mode = signupConfig.mode;
  if (mode === "closed") throw new AppError("SIGN_UP_CLOSED", "new accounts are not being created here");
  if (via === "invitation") return;
  if (mode === "invite" && !(via === "sso" && hasInvitation))
    throw new AppError("SIGN_UP_CLOSED", "accounts are created by invitation only; ask an administrator to invite you");
  if (via === "sso" && hasInvitation) return;
  if (!emailDomainAllowed(email))
    throw new AppError("EMAIL_DOMAIN_NOT_ALLOWED", "accounts with this email domain cannot be created here");
}
