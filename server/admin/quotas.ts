import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { getJobQuotaUsage, QUOTA_METRICS, type Period } from "../jobs/quota";
import { recordAudit } from "../audit";

/** One learner's quota use, found by id or email, for the console's quota page. */
export async function getLearnerQuotas(idOrEmail: string) {
  const who = idOrEmail.includes("@") ? { email: idOrEmail.toLowerCase() } : { id: idOrEmail };
  const user = await getDb().user.findFirst({ where: who, select: { id: true, email: true, name: true } });
  if (!user) throw new AppError("NOT_FOUND", "no user with this id or email");
  return { user, items: await getJobQuotaUsage(user.id) };
}

/**
 * An admin sets one learner's limit for a metric and period (null: back to the default), audited
 * in the same transaction. Raising a limit takes effect on the learner's next request.
 */
export async function setQuotaLimit(input: {
  actorId: string;
  userId: string;
  metric: string;
  period: Period;
  allowed: number | null;
}) {
  if (!QUOTA_METRICS.includes(input.metric))
    throw new AppError("INVALID_REQUEST", `unknown quota metric ${input.metric}`, { allowed: QUOTA_METRICS });
  return getDb().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true } });
    if (!user) throw new AppError("NOT_FOUND", "user not found");
    const key = { userId: input.userId, metric: input.metric, period: input.period };
    const previous = await tx.quotaLimit.findUnique({
      where: { userId_metric_period: key },
      select: { allowed: true },
    });
    const at = now();
    if (input.allowed === null) await tx.quotaLimit.deleteMany({ where: key });
    else
      await tx.quotaLimit.upsert({
        where: { userId_metric_period: key },
        create: { ...key, allowed: input.allowed, updatedBy: input.actorId, updatedAt: at },
        update: { allowed: input.allowed, updatedBy: input.actorId, updatedAt: at },
      });
    await recordAudit(
      {
        actorId: input.actorId,
        action: "quota.set_limit",
        scope: { ...key, allowed: input.allowed, previous: previous?.allowed ?? null },
        count: 1,
      },
      tx,
    );
    return { ...key, allowed: input.allowed, previous: previous?.allowed ?? null };
  });
}
