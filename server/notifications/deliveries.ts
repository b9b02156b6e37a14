import os from "node:os";
import { Prisma } from "../generated/prisma/client";
import { setting } from "../config";
import { getDb } from "../db";
import { isTerminal } from "../jobs/constants";
import { deliverWebhook, jobFinishedPayload, webhookConfig, WebhookError } from "./webhook";

/**
 * Zero-setup webhook delivery (no Inngest server): exactly one delivery per finished job whatever
 * the number of app instances. Every instance that sees the job finish records the delivery with
 * INSERT … ON CONFLICT DO NOTHING (the id is "<jobId>:<status>", so there is one row); sending is
 * then claimed row by row with FOR UPDATE SKIP LOCKED and a short claim window, so one instance
 * sends it at a time, and a crashed sender's claim simply passes. Failed sends are retried with
 * exponential backoff (JOB_WEBHOOK_BACKOFF_MS · 2^n) up to JOB_WEBHOOK_MAX_ATTEMPTS; the rows are
 * the delivery log admins read.
 */
const CLAIM_SECONDS = 30;
const instanceId = `${os.hostname()}-${process.pid}`;

export type DeliveryRow = {
  id: string;
  jobId: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
};

/** Records that a finished job's webhook is owed; idempotent across instances. */
export async function recordDelivery(jobId: string, status: string) {
  if (!isTerminal(status) || !webhookConfig()) return;
  await getDb().$executeRaw`
    INSERT INTO "WebhookDelivery" (id, "jobId", "nextAttemptAt", "updatedAt")
    -- Due now, truncated: the column keeps milliseconds, and now() rounded up would be due only
    -- in a fraction of a millisecond, missing a claim made at once.
    VALUES (${`${jobId}:${status}`}, ${jobId}, date_trunc('milliseconds', now()), now())
    ON CONFLICT (id) DO NOTHING`;
}

/** Claims up to `limit` due deliveries for this instance (attempts + 1), one statement. */
export async function claimDueDeliveries(limit = 20, claimer = instanceId) {
  return getDb().$queryRaw<{ id: string; jobId: string; attempts: number }[]>`
    UPDATE "WebhookDelivery" SET "claimedBy" = ${claimer}, "claimedUntil" = now() + make_interval(secs => ${CLAIM_SECONDS}),
      attempts = attempts + 1, "updatedAt" = now()
    WHERE id IN (
      SELECT id FROM "WebhookDelivery"
      WHERE status = 'pending' AND "nextAttemptAt" <= now() AND ("claimedUntil" IS NULL OR "claimedUntil" < now())
      ORDER BY "nextAttemptAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, "jobId", attempts`;
}

/** Sends every due delivery this instance can claim; returns how many were sent successfully. */
export async function deliverDue(opts: { limit?: number; claimer?: string } = {}) {
  const target = webhookConfig();
  if (!target) return { delivered: 0, failed: 0, retrying: 0 };
  const claimed = await claimDueDeliveries(opts.limit, opts.claimer);
  const outcome = { delivered: 0, failed: 0, retrying: 0 };
  await Promise.all(
    claimed.map(async (d) => {
      const result = await attempt(target, d);
      outcome[result]++;
    }),
  );
  return outcome;
}

async function attempt(target: { url: string; secret: string }, d: { id: string; jobId: string; attempts: number }) {
  const db = getDb();
  const payload = await jobFinishedPayload(d.jobId);
  try {
    if (!payload) throw new WebhookError("the job no longer exists", false);
    const res = await deliverWebhook(target, d.id, payload);
    await db.webhookDelivery.update({
      where: { id: d.id },
      data: {
        status: "delivered",
        deliveredAt: new Date(),
        lastStatusCode: res.status,
        lastError: null,
        claimedBy: null,
        claimedUntil: null,
      },
    });
    return "delivered" as const;
  } catch (e) {
    const retryable = e instanceof WebhookError && e.retryable && d.attempts < setting("JOB_WEBHOOK_MAX_ATTEMPTS");
    const code = /answered (\d{3})/.exec((e as Error).message)?.[1];
    await db.webhookDelivery.update({
      where: { id: d.id },
      data: {
        status: retryable ? "pending" : "failed",
        nextAttemptAt: new Date(Date.now() + setting("JOB_WEBHOOK_BACKOFF_MS") * 2 ** (d.attempts - 1)),
        lastStatusCode: code ? Number(code) : null,
        lastError: (e as Error).message.slice(0, 500),
        claimedBy: null,
        claimedUntil: null,
      },
    });
    return retryable ? ("retrying" as const) : ("failed" as const);
  }
}

/** The delivery log, newest first (admin console). */
export async function listDeliveries(input: {
  status?: "pending" | "delivered" | "failed";
  jobId?: string;
  limit: number;
}) {
  const where: Prisma.WebhookDeliveryWhereInput = {
    ...(input.status ? { status: input.status } : {}),
    ...(input.jobId ? { jobId: input.jobId } : {}),
  };
  const [items, total] = await Promise.all([
    getDb().webhookDelivery.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: input.limit }),
    getDb().webhookDelivery.count({ where }),
  ]);
  return {
    items: items.map((r): DeliveryRow => ({
      id: r.id,
      jobId: r.jobId,
      status: r.status as DeliveryRow["status"],
      attempts: r.attempts,
      nextAttemptAt: r.nextAttemptAt,
      lastStatusCode: r.lastStatusCode,
      lastError: r.lastError,
      createdAt: r.createdAt,
      deliveredAt: r.deliveredAt,
    })),
    total,
  };
}
