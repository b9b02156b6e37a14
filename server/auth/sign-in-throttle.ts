import { createHash } from "node:crypto";
import { Prisma } from "../generated/prisma/client";
import { getReserveDb } from "../db-reserve";
import { now } from "../clock";
import { webSecurityConfig as config } from "../config";

/**
 * Sign-in limits that an attacker cannot turn against the account's owner (docs/security.md):
 *
 * - per (account, client): every attempt is counted *before* the password is checked, by one
 *   upsert that returns the new count, so N concurrent guesses get exactly `signInMaxFailures`
 *   password checks; past that, that client is locked out of that account until the window that
 *   began with its first attempt ends. Another client (the owner, elsewhere) is not affected.
 * - per account, all clients together: past `accountSlowdownAfter` failures in the window each
 *   further attempt waits before its password check, doubling up to a cap. It slows guessing from
 *   many addresses without ever refusing the right password.
 *
 * A success clears the pair's count; an answer that was not a password check (bad body, refused
 * origin) gives its attempt back. Unknown emails are counted the same way, so a lock tells
 * nothing about which accounts exist. Counts live in the database, shared by every app instance.
 */
export function normalizeEmail(email: unknown): string | null {
  return typeof email === "string" && email.trim() ? email.trim().toLowerCase() : null;
}

// The email is hashed into the key: any string a client sends (NUL, 1 MB) fits a text key.
const digest = (email: string) => createHash("sha256").update(email).digest("base64url");
const pairKey = (email: string, ip: string) => `pair:${digest(email)}|${ip}`;
const accountKey = (email: string) => `account:${digest(email)}`;

/** The counter keys that name an account (erasure removes them): its own, and each (account, client) pair's prefix. */
export function signInCounterKeysOf(email: string) {
  const e = normalizeEmail(email) ?? "";
  return { account: accountKey(e), pairPrefix: `pair:${digest(e)}|` };
}

type Counter = { attempts: number; windowStart: Date };

/** Adds one attempt to a counter (a new window if the old one has ended) and returns the result. */
async function countAttempt(key: string): Promise<Counter> {
  const at = now();
  const ended = new Date(at.getTime() - config.signInWindowMs);
  const rows = await getReserveDb().$queryRaw<Counter[]>`
    INSERT INTO "SignInCounter" (key, attempts, "windowStart", "updatedAt")
    VALUES (${key}, 1, ${at}::timestamp(3), ${at}::timestamp(3))
    ON CONFLICT (key) DO UPDATE SET
      attempts = CASE WHEN "SignInCounter"."windowStart" <= ${ended}::timestamp(3) THEN 1 ELSE "SignInCounter".attempts + 1 END,
      "windowStart" = CASE WHEN "SignInCounter"."windowStart" <= ${ended}::timestamp(3) THEN ${at}::timestamp(3) ELSE "SignInCounter"."windowStart" END,
      "updatedAt" = ${at}::timestamp(3)
    RETURNING attempts, "windowStart"`;
  return rows[0]!;
}

/** How long an attempt waits when the account already has `failures` failures in the window. */
export function accountSlowdownMs(failures: number): number {
  const over = failures - config.accountSlowdownAfter;
  if (over < 0) return 0;
  return Math.min(config.accountSlowdownBaseMs * 2 ** Math.min(over, 30), config.accountSlowdownCapMs);
}

export type Admission = { lockedUntil: Date } | { lockedUntil: null; delayMs: number };

/** Counts this attempt; says whether the client is locked out of the account or how long to wait. */
export async function admitSignIn(email: string, ip: string): Promise<Admission> {
  const pair = await countAttempt(pairKey(email, ip));
  if (pair.attempts > config.signInMaxFailures) {
    return { lockedUntil: new Date(pair.windowStart.getTime() + config.signInWindowMs) };
  }
  const account = await countAttempt(accountKey(email));
  return { lockedUntil: null, delayMs: accountSlowdownMs(account.attempts - 1) };
}

/** After an admitted attempt: a wrong password keeps its count, a success clears the pair. */
export async function settleSignIn(email: string, ip: string, outcome: "success" | "wrong-password" | "not-checked") {
  if (outcome === "wrong-password") return;
  const db = getReserveDb();
  if (outcome === "success") {
    await db.signInCounter.deleteMany({ where: { key: pairKey(email, ip) } });
    await giveBack([accountKey(email)]);
    await pruneEndedWindows();
  } else {
    await giveBack([pairKey(email, ip), accountKey(email)]);
  }
}

async function giveBack(keys: string[]) {
  await getReserveDb().$executeRaw`
    UPDATE "SignInCounter" SET attempts = GREATEST(attempts - 1, 0) WHERE key IN (${Prisma.join(keys)})`;
}

/**
 * Counters whose window has ended count nothing; without this, every address that ever guessed
 * would keep a row. Run on successful sign-ins, which are frequent and not attacker-driven. The
 * per-IP limiter's rows (rate-limit-storage.ts) use windows of at most a minute.
 */
async function pruneEndedWindows() {
  const at = now().getTime();
  await getReserveDb()
    .$executeRaw`DELETE FROM "SignInCounter" WHERE "windowStart" < ${new Date(at - config.signInWindowMs)}::timestamp(3)`;
  await getReserveDb().$executeRaw`DELETE FROM "RateLimit" WHERE "lastRequest" < ${at - 10 * 60_000}`;
}

export function signInKeys(email: string, ip: string) {
  return { pair: pairKey(email, ip), account: accountKey(email) };
}
