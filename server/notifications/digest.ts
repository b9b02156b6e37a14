import crypto from "node:crypto";
import nodemailer from "nodemailer";
import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { mailConfig, setting } from "../config";
import { authSecret } from "../auth/secret";
import { isLocale, DEFAULT_LOCALE } from "../i18n/locales";
import { validTimeZone } from "../review/day";
import { todayFor } from "../review/today";
import { digestMessage } from "./digest-text";

/**
 * The daily review digest by email (opt-in): the learner model's counts, as the page's top line
 * states them (cards Review offers now, and later in her day), and the plan's first step (flagged
 * when the plan was stored degraded), with a
 * signed one-click unsubscribe link (RFC 8058). Sent through nodemailer to the SMTP server of the
 * environment (SMTP_HOST …); without SMTP_HOST nothing is sent. A learner gets one digest per
 * local day, at their chosen local hour, never in quiet hours (DIGEST_QUIET_START–END, local).
 * The scheduler calls `sendDueDigests`; a failing SMTP server fails that learner's digest only
 * (recorded, retried on the next tick, shown to admins) and never blocks anything else.
 */
export const mailConfigured = () => Boolean(mailConfig.host);

/** After this long a digest still "sending" (its process died) may be tried again. */
const STALE_SENDING_MS = 10 * 60_000;
/** Attempts per learner and day before the scheduler stops retrying. */
export const DIGEST_MAX_ATTEMPTS = 5;

export function publicOrigin(): string {
  return (setting("BETTER_AUTH_URL") ?? `http://localhost:${setting("PORT")}`).replace(/\/$/, "");
}

/**
 * HMAC of the learner's id and opt-in count (`epoch`, User.digestEpoch): the unsubscribe link works
 * without signing in, names no one else, and is retired by the learner's next opt-in (a forwarded
 * digest cannot unsubscribe her for good). Links sent before the count existed sign the id alone
 * and stand for epoch 0.
 */
export function unsubscribeSignature(userId: string, epoch: number): string {
  const what = epoch === 0 ? `digest-unsubscribe:${userId}` : `digest-unsubscribe:${userId}:${epoch}`;
  return crypto.createHmac("sha256", authSecret()).update(what).digest("base64url");
}

/** The learner and opt-in a link names, if its signature is good (whether that opt-in is current is the caller's to check). */
export function verifyUnsubscribe(
  userId: unknown,
  epochText: unknown,
  signature: unknown,
): { userId: string; epoch: number } | null {
  if (typeof userId !== "string" || typeof signature !== "string" || userId.length > 64 || signature.length > 64)
    return null;
  const epoch =
    epochText == null ? 0 : typeof epochText === "string" && /^[1-9]\d{0,8}$/.test(epochText) ? Number(epochText) : NaN;
  if (Number.isNaN(epoch)) return null;
  const want = Buffer.from(unsubscribeSignature(userId, epoch));
  const got = Buffer.from(signature);
  return want.length === got.length && crypto.timingSafeEqual(want, got) ? { userId, epoch } : null;
}

export const unsubscribeUrl = (userId: string, epoch: number) =>
  `${publicOrigin()}/api/digest/unsubscribe?u=${encodeURIComponent(userId)}${epoch ? `&e=${epoch}` : ""}&s=${unsubscribeSignature(userId, epoch)}`;

/** The learner's unsubscribe link as it is sent now (under her current opt-in). */
export async function unsubscribeLink(userId: string) {
  const { digestEpoch } = await getDb().user.findUniqueOrThrow({
    where: { id: userId },
    select: { digestEpoch: true },
  });
  return unsubscribeUrl(userId, digestEpoch);
}

/** Whether a verified link's opt-in is the learner's current one (else a later opt-in retired it). */
export async function currentOptIn(link: { userId: string; epoch: number }) {
  const user = await getDb().user.findUnique({ where: { id: link.userId }, select: { digestEpoch: true } });
  return user?.digestEpoch === link.epoch;
}

/** The learner's local date (YYYY-MM-DD) and hour at `at`. */
export function localClock(at: Date, timeZone: string) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: validTimeZone(timeZone),
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
}

const inQuiet = (hour: number, start: number, end: number) =>
  start === end ? false : start < end ? hour >= start && hour < end : hour >= start || hour < end;

/** The local hour a digest chosen for `digestHour` really goes out: the chosen hour, or the end of quiet hours if it falls in them. */
export function digestSendHour(digestHour: number, quietStart: number, quietEnd: number) {
  return inQuiet(digestHour, quietStart, quietEnd) ? quietEnd : digestHour;
}

/** Is a digest due at this local hour for a learner who chose `digestHour`? (Quiet hours move it to their end.) */
export function digestHourReached(hour: number, digestHour: number, quietStart: number, quietEnd: number) {
  if (inQuiet(hour, quietStart, quietEnd)) return false;
  return hour >= digestSendHour(digestHour, quietStart, quietEnd);
}

function transport() {
  const user = mailConfig.user;
  return nodemailer.createTransport({
    host: mailConfig.host,
    port: mailConfig.port,
    secure: mailConfig.secure,
    ...(user ? { auth: { user, pass: mailConfig.password ?? "" } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
}

/** Takes this learner's digest for the day (one instance wins; a failed or stale one is retried). */
async function claim(userId: string, day: string, at: Date): Promise<boolean> {
  const stale = new Date(at.getTime() - STALE_SENDING_MS);
  const rows = await getDb().$queryRaw<{ userId: string }[]>(Prisma.sql`
    INSERT INTO "DigestSend" ("userId", day, status, attempts, "updatedAt")
    VALUES (${userId}, ${day}, 'sending', 1, ${at}::timestamp(3))
    ON CONFLICT ("userId", day) DO UPDATE SET status = 'sending', attempts = "DigestSend".attempts + 1,
      "updatedAt" = EXCLUDED."updatedAt"
    WHERE ("DigestSend".status = 'failed' AND "DigestSend".attempts < ${DIGEST_MAX_ATTEMPTS})
       OR ("DigestSend".status = 'sending' AND "DigestSend"."updatedAt" < ${stale}::timestamp(3))
    RETURNING "userId"`);
  return rows.length > 0;
}

export type DigestRun = { considered: number; sent: number; failed: number; skipped: string | null };

/** One scheduler tick: every opted-in learner whose local digest hour has come gets today's digest once. */
export async function sendDueDigests(at = now()): Promise<DigestRun> {
  if (!mailConfigured()) return { considered: 0, sent: 0, failed: 0, skipped: "no SMTP_HOST" };
  // The digest is a learner's: an admin's account gets none, whatever its stored choice.
  const learners = await getDb().user.findMany({
    where: { digestOptIn: true, role: "learner" },
    select: { id: true, email: true, name: true, locale: true, timeZone: true, digestHour: true, digestEpoch: true },
  });
  const run: DigestRun = { considered: 0, sent: 0, failed: 0, skipped: null };
  let mailer: ReturnType<typeof transport> | null = null;
  for (const learner of learners) {
    const { day, hour } = localClock(at, learner.timeZone ?? "UTC");
    if (!digestHourReached(hour, learner.digestHour, mailConfig.quietStart, mailConfig.quietEnd)) continue;
    run.considered++;
    if (!(await claim(learner.id, day, at))) continue;
    try {
      mailer ??= transport();
      await sendDigest(mailer, learner);
      await getDb().digestSend.update({
        where: { userId_day: { userId: learner.id, day } },
        data: { status: "sent", sentAt: now(), lastError: null },
      });
      run.sent++;
    } catch (e) {
      await getDb().digestSend.update({
        where: { userId_day: { userId: learner.id, day } },
        data: { status: "failed", lastError: String((e as Error).message ?? e).slice(0, 500) },
      });
      run.failed++;
    }
  }
  mailer?.close();
  return run;
}

type DigestLearner = {
  id: string;
  email: string;
  name: string;
  locale: string | null;
  timeZone: string | null;
  /** Her opt-in count, when the caller read it; otherwise it is read here. */
  digestEpoch?: number;
};

/** The learner's digest as it would go out now: the top line's counts and first step, in their language. */
export async function composeDigest(learner: DigestLearner) {
  const locale = isLocale(learner.locale) ? learner.locale : DEFAULT_LOCALE;
  const { now: dueNow, laterToday, firstStep } = await todayFor(learner.id, learner.timeZone);
  const unsubscribe =
    learner.digestEpoch === undefined
      ? await unsubscribeLink(learner.id)
      : unsubscribeUrl(learner.id, learner.digestEpoch);
  const message = digestMessage(locale, {
    name: learner.name,
    dueNow,
    laterToday,
    firstStep,
    pageUrl: `${publicOrigin()}/`,
    unsubscribeUrl: unsubscribe,
  });
  return { locale, unsubscribe, message };
}

async function sendDigest(mailer: ReturnType<typeof transport>, learner: DigestLearner) {
  const { locale, unsubscribe, message } = await composeDigest(learner);
  await mailer.sendMail({
    from: mailConfig.from,
    to: learner.email,
    ...message,
    // RFC 8058: mail clients may unsubscribe with one POST to the List-Unsubscribe link.
    headers: { "Content-Language": locale, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    list: { unsubscribe: { url: unsubscribe, comment: "one-click" } },
  });
}

/** Learner's choice (account page): opt in or out, the local hour, and their time zone. */
export async function setDigest(userId: string, input: { optIn: boolean; hour: number; timeZone?: string }) {
  // Opting in (from out) counts a new opt-in: the links sent under the last one are retired.
  if (input.optIn)
    await getDb().user.updateMany({
      where: { id: userId, digestOptIn: false },
      data: { digestEpoch: { increment: 1 } },
    });
  const user = await getDb().user.update({
    where: { id: userId },
    data: {
      digestOptIn: input.optIn,
      digestHour: input.hour,
      ...(input.timeZone ? { timeZone: validTimeZone(input.timeZone) } : {}),
    },
    select: { digestOptIn: true, digestHour: true, timeZone: true },
  });
  return digestSettings(userId, user);
}

export async function digestSettings(
  userId: string,
  known?: { digestOptIn: boolean; digestHour: number; timeZone: string | null },
) {
  const user =
    known ??
    (await getDb().user.findUniqueOrThrow({
      where: { id: userId },
      select: { digestOptIn: true, digestHour: true, timeZone: true },
    }));
  const { quietStart, quietEnd } = mailConfig;
  return {
    optIn: user.digestOptIn,
    hour: user.digestHour,
    /** The local hour the digest really goes out (the end of quiet hours when the chosen hour is in them). */
    sendHour: digestSendHour(user.digestHour, quietStart, quietEnd),
    timeZone: user.timeZone,
    mailConfigured: mailConfigured(),
    quietStart,
    quietEnd,
  };
}

/** The signed link's action: the learner is opted out (idempotent), unless a later opt-in retired the link. */
export async function unsubscribe(link: { userId: string; epoch: number }) {
  await getDb().user.updateMany({
    where: { id: link.userId, digestEpoch: link.epoch },
    data: { digestOptIn: false },
  });
}

/** For the console: digests that failed in the last day (the SMTP server refused or was unreachable). */
export async function failedDigests(since: Date) {
  return getDb().digestSend.findMany({
    where: { status: "failed", updatedAt: { gte: since } },
    orderBy: { updatedAt: "desc" },
    take: 20,
    select: { userId: true, day: true, attempts: true, lastError: true, updatedAt: true },
  });
}
