import { hashPassword, verifyPassword } from "better-auth/crypto";
import { AppError } from "../errors";
import { recordAudit } from "../admin/audit";
import { getDb } from "../db";
import { passwordProblem } from "../auth/password-policy";

export { MIN_PASSWORD_LENGTH } from "../auth/password-policy";

/**
 * A signed-in user replaces their password (required after `admin:create`'s one-time password):
 * the current one must match, the new one must differ; the flag is cleared, the user's other
 * sessions end, and the change is audited — one transaction, so a failure leaves the old password.
 */
export async function changePassword(userId: string, keepSessionId: string, current: string, next: string) {
  const problem = passwordProblem(next);
  if (problem) throw new AppError("WEAK_PASSWORD", problem.replace("the password", "the new password"));
  if (next === current) throw new AppError("INVALID_REQUEST", "the new password must differ from the current one");
  const db = getDb();
  const account = await db.account.findUnique({
    where: { providerId_accountId: { providerId: "credential", accountId: userId } },
    select: { id: true, password: true },
  });
  if (!account?.password || !(await verifyPassword({ hash: account.password, password: current })))
    throw new AppError("INVALID_CREDENTIALS", "the current password is wrong");
  const hash = await hashPassword(next);
  await db.$transaction(async (tx) => {
    await tx.account.update({ where: { id: account.id }, data: { password: hash } });
    const user = await tx.user.update({
      where: { id: userId },
      data: { mustChangePassword: false },
      select: { role: true, email: true },
    });
    await tx.session.deleteMany({ where: { userId, id: { not: keepSessionId } } });
    if (user.role === "admin")
      await recordAudit({ actorId: userId, action: "account.change_password", scope: { userId }, count: 1 }, tx);
  });
  return { changed: true as const };
}
