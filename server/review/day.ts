/**
 * The learner's day: it starts at midnight in their time zone (an IANA name the browser sends;
 * UTC when it sends none or one this runtime does not know). Burying a card and Review's daily
 * limits count in it.
 */
export function validTimeZone(tz: string | undefined | null): string {
  if (!tz) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return tz;
  } catch {
    return "UTC";
  }
}

/** Minutes the zone is ahead of UTC at `at`. */
function offsetMinutes(at: Date, tz: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    })
      .formatToParts(at)
      .map((p) => [p.type, Number(p.value)]),
  );
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((local - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/** Midnight at the start of the local day `days` after the one `at` falls in (0: today's). */
export function localMidnight(at: Date, tz: string, days = 0): Date {
  const zone = validTimeZone(tz);
  const shifted = new Date(at.getTime() + offsetMinutes(at, zone) * 60_000);
  const guess = Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate() + days);
  // The offset at the guess itself (a daylight-saving change between now and then moves it).
  const first = guess - offsetMinutes(new Date(guess), zone) * 60_000;
  return new Date(guess - offsetMinutes(new Date(first), zone) * 60_000);
}
