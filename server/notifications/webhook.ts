import crypto from "node:crypto";
import { getDb } from "../db";
import { setting } from "../config";
import { now } from "../clock";

/**
 * The signed notification to the learning platform when a job finishes. The body is JSON; the
 * header `X-AJR-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` lets the receiver
 * check origin and freshness (refuse a t more than 300 s away to stop replays; every attempt is
 * signed when it is sent, so a retry is never refused for its age). Each delivery carries the same
 * `X-AJR-Delivery` id so the receiver can ignore repeats. The body's shape: webhook-schema.ts
 * (published in the platform API's OpenAPI document, `webhooks.jobFinished`).
 */
export function webhookConfig() {
  const url = setting("JOB_WEBHOOK_URL");
  const secret = setting("JOB_WEBHOOK_SECRET");
  return url && secret ? { url, secret } : null;
}

export async function jobFinishedPayload(jobId: string) {
  const job = await getDb().aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: {
      id: true,
      userId: true,
      jobType: true,
      targetType: true,
      targetId: true,
      status: true,
      attemptNo: true,
      retryCount: true,
      errorCode: true,
      errorMessage: true,
      finishedAt: true,
      retriedFromJobId: true,
      result: { select: { id: true, outputSchemaVersion: true, degraded: true } },
      user: { select: { externalId: true } },
    },
  });
  if (!job) return null;
  const { user, ...rest } = job;
  return {
    type: "ai.job.finished",
    job: { ...rest, learnerExternalId: user.externalId, finishedAt: job.finishedAt?.toISOString() ?? null },
  };
}

export function signBody(secret: string, body: string, timestamp: number) {
  const mac = crypto.createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${mac}`;
}

export function verifySignature(secret: string, body: string, header: string, toleranceSeconds = 300, at = Date.now()) {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]));
  const t = Number(parts.t);
  if (!Number.isFinite(t) || Math.abs(at / 1000 - t) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(signBody(secret, body, t).split("v1=")[1]!, "hex");
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

export class WebhookError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** One delivery attempt; throws WebhookError (retryable on network errors, 408, 429 and 5xx). */
export async function deliverWebhook(
  target: { url: string; secret: string },
  deliveryId: string,
  payload: unknown,
  timeoutMs = 10_000,
) {
  const body = JSON.stringify(payload);
  let res: Response;
  try {
    res = await fetch(target.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-ajr-delivery": deliveryId,
        // Signed now, at each attempt: a retry carries a fresh timestamp the receiver's window accepts.
        "x-ajr-signature": signBody(target.secret, body, Math.floor(now().getTime() / 1000)),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new WebhookError(`webhook unreachable: ${(e as Error).message}`, true);
  }
  if (res.ok) return { status: res.status };
  const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
  throw new WebhookError(`webhook answered ${res.status}`, retryable);
}
