import crypto from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { appConfig, setting } from "../config";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { LIMITS, plainLine } from "../security/learner-text";
import { passwordProblem } from "../auth/password-policy";
import { assertSignupAllowed, normalizedEmail } from "./signup-policy";

/** docs/contract.md#learners-and-their-data: an invitation link works for 7 days, once. */
export const INVITATION_DAYS = 7;
/** Who wrote the audit row when the invitation came from the shell, not a signed-in admin. */
export const CLI_INVITE_ACTOR = "cli:learner:invite";
/** 32 random bytes, base64url: exactly 43 characters. Anything else is not a token we made. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export type InvitationState = "valid" | "expired" | "used" | "revoked" | "not_found";

export function hashInvitationToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** The app's public origin: BETTER_AUTH_URL, else the zero-setup local origin. */
export function publicOrigin(): string {
  return (setting("BETTER_AUTH_URL") ?? `http://localhost:${appConfig.port}`).replace(/\/+$/, "");
}

export function invitationLink(token: string): string {
  return `${publicOrigin()}/invite/${token}`;
}

function newToken() {
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, tokenHash: hashInvitationToken(token) };
}

const expiry = () => new Date(now().getTime() + INVITATION_DAYS * 86_400_000);

/**
 * Refuses an email whose account an invitation may not complete: one that can already sign in with
 * a password (nothing to invite to), and one a platform made through its service key (`externalId`
 * set): that key can read, move and erase the account, so a password set through an invitation
 * would open the key's account to the person invited (docs/security.md, "Trust at the edges").
 */
async function assertInvitable(tx: DbOrTx, email: string) {
  const user = await tx.user.findUnique({
    where: { email },
    select: { externalId: true, accounts: { where: { providerId: "credential" }, select: { password: true } } },
  });
  if (user?.accounts.some((a) => a.password))
    throw new AppError(
      "ACCOUNT_EXISTS",
      "this email already has an account with a password; the learner signs in with it (an invitation is for new accounts and for accounts without a password)",
    );
  if (user && user.externalId !== null)
    throw new AppError(
      "ACCOUNT_EXISTS",
      "this email belongs to a learner a platform manages through its service key; an invitation never completes that account",
    );
}

/**
 * Invites an email (console or `npm run learner:invite`): a new link valid for 7 days. Inviting
 * an email that already has an invitation re-sends it: the old link dies. An email whose account
 * has no password yet and that no platform made (one made by single sign-on) may be invited:
 * accepting gives that account a password. An account a platform made is refused, on invitation
 * and again on acceptance (it may have been made in between). Audited; the link is returned once, only its hash is stored.
 */
export async function createInvitation(rawEmail: unknown, actorId: string | null) {
  const email = normalizedEmail(rawEmail);
  assertSignupAllowed(email, "invitation");
  const { token, tokenHash } = newToken();
  const invitation = await getDb().$transaction(async (tx) => {
    await assertInvitable(tx, email);
    const row = await tx.invitation.upsert({
      where: { email },
      create: { email, tokenHash, expiresAt: expiry(), invitedById: actorId },
      update: {
        tokenHash,
        expiresAt: expiry(),
        status: "pending",
        invitedById: actorId,
        sentCount: { increment: 1 },
        revokedAt: null,
        acceptedAt: null,
        userId: null,
      },
    });
    await recordAudit(
      {
        actorId: actorId ?? CLI_INVITE_ACTOR,
        action: row.sentCount > 1 ? "invitation.resend" : "invitation.create",
        scope: { invitationId: row.id },
        count: 1,
      },
      tx,
    );
    return row;
  });
  return { invitationId: invitation.id, email, expiresAt: invitation.expiresAt, link: invitationLink(token) };
}

/** A new link for an existing invitation (pending, expired or revoked); the old link dies. */
export async function resendInvitation(invitationId: string, actorId: string | null) {
  const row = await getDb().invitation.findUnique({ where: { id: invitationId }, select: { email: true } });
  if (!row) throw new AppError("INVITATION_NOT_FOUND", "no such invitation");
  return createInvitation(row.email, actorId);
}

/** Ends a pending invitation: its link stops working at once. Audited. */
export async function revokeInvitation(invitationId: string, actorId: string | null) {
  return getDb().$transaction(async (tx) => {
    const changed = await tx.invitation.updateMany({
      where: { id: invitationId, status: "pending" },
      data: { status: "revoked", revokedAt: now() },
    });
    if (changed.count === 0) {
      const row = await tx.invitation.findUnique({ where: { id: invitationId }, select: { status: true } });
      if (!row) throw new AppError("INVITATION_NOT_FOUND", "no such invitation");
      if (row.status === "accepted") throw new AppError("INVITATION_USED", "this invitation was already accepted");
      return { revoked: true as const };
    }
    await recordAudit(
      { actorId: actorId ?? CLI_INVITE_ACTOR, action: "invitation.revoke", scope: { invitationId }, count: 1 },
      tx,
    );
    return { revoked: true as const };
  });
}

function stateOf(row: { status: string; expiresAt: Date } | null): InvitationState {
  if (!row) return "not_found";
  if (row.status === "accepted") return "used";
  if (row.status === "revoked") return "revoked";
  return row.expiresAt.getTime() <= now().getTime() ? "expired" : "valid";
}

/** What the invitation page shows for a link: its state and, while it is valid, the email. */
export async function lookupInvitation(token: unknown): Promise<{ state: InvitationState; email: string | null }> {
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) return { state: "not_found", email: null };
  const row = await getDb().invitation.findUnique({
    where: { tokenHash: hashInvitationToken(token) },
    select: { status: true, expiresAt: true, email: true },
  });
  const state = stateOf(row);
  return { state, email: state === "valid" ? row!.email : null };
}

const STATE_ERRORS: Record<Exclude<InvitationState, "valid">, AppError> = {
  not_found: new AppError("INVITATION_NOT_FOUND", "this invitation link is not valid"),
  expired: new AppError("INVITATION_EXPIRED", "this invitation link has expired; ask for a new one"),
  used: new AppError("INVITATION_USED", "this invitation link was already used; sign in instead"),
  revoked: new AppError("INVITATION_REVOKED", "this invitation was withdrawn; ask for a new one"),
};

/**
 * The learner accepts: sets a password (the one policy) and optionally a display name. The
 * invitation is taken by one conditional UPDATE, so of two concurrent acceptances exactly one
 * goes on and the other gets INVITATION_USED; the account, its password, the invitation's user
 * and the audit row are written in the same transaction, or none of them.
 */
export async function acceptInvitation(input: { token: unknown; password: unknown; name?: unknown }) {
  const { token, password } = input;
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) throw STATE_ERRORS.not_found;
  const problem = passwordProblem(password);
  if (problem) throw new AppError("WEAK_PASSWORD", problem);
  let name: string | null = null;
  if (input.name !== undefined && input.name !== null && input.name !== "") {
    if (typeof input.name !== "string") throw new AppError("INVALID_REQUEST", "name must be text");
    name = plainLine(input.name);
    if (name.length > LIMITS.displayName)
      throw new AppError("INVALID_REQUEST", `name may have at most ${LIMITS.displayName} characters`);
  }
  const tokenHash = hashInvitationToken(token);
  const state = await lookupInvitation(token);
  if (state.state !== "valid") throw STATE_ERRORS[state.state];
  assertSignupAllowed(state.email!, "invitation");
  const hash = await hashPassword(password as string);
  return getDb().$transaction(async (tx) => {
    const at = now();
    const taken = await tx.$queryRaw<{ id: string; email: string }[]>`
      UPDATE "Invitation" SET status = 'accepted', "acceptedAt" = ${at}::timestamp(3), "updatedAt" = ${at}::timestamp(3)
      WHERE "tokenHash" = ${tokenHash} AND status = 'pending' AND "expiresAt" > ${at}::timestamp(3)
      RETURNING id, email`;
    if (taken.length === 0) {
      const row = await tx.invitation.findUnique({ where: { tokenHash }, select: { status: true, expiresAt: true } });
      const now_ = stateOf(row);
      throw STATE_ERRORS[now_ === "valid" ? "used" : now_];
    }
    const { id: invitationId, email } = taken[0]!;
    await assertInvitable(tx, email);
    const existing = await tx.user.findUnique({ where: { email }, select: { id: true } });
    const user = existing
      ? await tx.user.update({
          where: { id: existing.id },
          data: { emailVerified: true, ...(name ? { name } : {}) },
          select: { id: true },
        })
      : await tx.user.create({
          data: { email, name: name || email.split("@")[0]!.slice(0, LIMITS.displayName), emailVerified: true },
          select: { id: true },
        });
    await tx.account.upsert({
      where: { providerId_accountId: { providerId: "credential", accountId: user.id } },
      create: { id: `acct_${user.id}`, providerId: "credential", accountId: user.id, userId: user.id, password: hash },
      update: { password: hash },
    });
    await tx.invitation.update({ where: { id: invitationId }, data: { userId: user.id } });
    await recordAudit(
      { actorId: user.id, action: "invitation.accept", scope: { invitationId, userId: user.id }, count: 1 },
      tx,
    );
    return { userId: user.id, email, created: !existing };
  });
}
