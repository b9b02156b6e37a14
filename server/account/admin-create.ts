import crypto from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import { AppError } from "../errors";
import { getDb } from "../db";

const emailSchema = z.email().max(254);
/** Who wrote the audit row: the operator's shell, not a signed-in admin. */
export const CLI_ACTOR = "cli:admin:create";

/**
 * The first admin without a published password (`npm run admin:create -- <email>`): creates the
 * user or promotes an existing one, sets a random one-time password that must be changed at the
 * first sign-in (User.mustChangePassword), ends the account's existing sessions, and audits it —
 * all in one transaction. The password is returned once and stored only as its scrypt hash.
 */
export async function createAdmin(rawEmail: string) {
  const parsed = emailSchema.safeParse(rawEmail.trim().toLowerCase());
  if (!parsed.success)
    throw new AppError("INVALID_REQUEST", `not an email address: ${JSON.stringify(rawEmail.slice(0, 100))}`);
  const email = parsed.data;
  const password = crypto.randomBytes(18).toString("base64url");
  const hash = await hashPassword(password);
  return getDb().$transaction(async (tx) => {
    const existing = await tx.user.findUnique({ where: { email }, select: { id: true, role: true } });
    const user = existing
      ? await tx.user.update({ where: { id: existing.id }, data: { role: "admin", mustChangePassword: true } })
      : await tx.user.create({
          data: { email, name: email.split("@")[0]!, role: "admin", mustChangePassword: true, emailVerified: true },
        });
    await tx.account.upsert({
      where: { providerId_accountId: { providerId: "credential", accountId: user.id } },
      create: { id: `acct_${user.id}`, providerId: "credential", accountId: user.id, userId: user.id, password: hash },
      update: { password: hash },
    });
    // Whoever held a session on this account before must sign in again with the new password.
    const ended = await tx.session.deleteMany({ where: { userId: user.id } });
    const action = existing ? (existing.role === "admin" ? "admin.reset_password" : "admin.promote") : "admin.create";
    await tx.adminAuditLog.create({
      data: { actorId: CLI_ACTOR, action, scope: { userId: user.id, email, sessionsEnded: ended.count }, count: 1 },
    });
    return { userId: user.id, email, action, password };
  });
}
