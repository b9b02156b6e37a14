import { getDb } from "../db";
import { now } from "../clock";
import { setting } from "../config";

/**
 * Failed sign-ins are counted per account (lower-cased email) in the database, so the limit holds
 * across app instances and whichever IPs the guesses come from. MAX failures within WINDOW lock
 * that email's sign-in until the window that began with the first failure has passed; a
 * successful sign-in clears the count. Unknown emails are counted the same way, so the answer
 * never tells whether an account exists.
 */
export const signInThrottle = {
  get maxFailures() {
    return setting("AUTH_MAX_FAILED_SIGN_INS");
  },
  get windowMs() {
    return setting("AUTH_FAILED_SIGN_IN_WINDOW_SECONDS") * 1000;
  },
};

export function normalizeEmail(email: unknown): string | null {
  return typeof email === "string" && email.trim() ? email.trim().toLowerCase() : null;
}

/** When the email is locked, the time it unlocks; otherwise null. */
export async function signInLockedUntil(email: string): Promise<Date | null> {
  const row = await getDb().signInThrottle.findUnique({ where: { email } });
  if (!row || row.failures < signInThrottle.maxFailures) return null;
  const until = new Date(row.windowStart.getTime() + signInThrottle.windowMs);
  return until > now() ? until : null;
}

/** One statement, so concurrent failures on several instances all count. */
export async function recordFailedSignIn(email: string) {
  const at = now();
  const windowStartedBefore = new Date(at.getTime() - signInThrottle.windowMs);
  await getDb().$executeRaw`
    INSERT INTO "SignInThrottle" (email, failures, "windowStart", "updatedAt")
    VALUES (${email}, 1, ${at}::timestamp(3), ${at}::timestamp(3))
    ON CONFLICT (email) DO UPDATE SET
      failures = CASE WHEN "SignInThrottle"."windowStart" <= ${windowStartedBefore}::timestamp(3) THEN 1 ELSE "SignInThrottle".failures + 1 END,
      "windowStart" = CASE WHEN "SignInThrottle"."windowStart" <= ${windowStartedBefore}::timestamp(3) THEN ${at}::timestamp(3) ELSE "SignInThrottle"."windowStart" END,
      "updatedAt" = ${at}::timestamp(3)`;
}

export async function clearFailedSignIns(email: string) {
  await getDb().signInThrottle.deleteMany({ where: { email } });
}
