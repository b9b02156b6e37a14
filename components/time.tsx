"use client";

import { useLocale } from "next-intl";
import { useSyncExternalStore } from "react";

/**
 * Every time on every page goes through here: one format, in the page's language (the learner's
 * choice, i18n/request.ts; English in the console) and the viewer's own time zone (the browser's;
 * never the server's), relative where recency matters ("2 min ago") with
 * the absolute time on hover, and a machine-readable <time dateTime>.
 *
 * The server cannot know the viewer's zone, so server rendering and hydration show a neutral UTC
 * text and the first client render switches to the viewer's (useSyncExternalStore's server
 * snapshot), which avoids both a hydration mismatch and a wrong zone left on screen.
 */

const TICK_MS = 15_000;
let listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
let current = Math.floor(Date.now() / TICK_MS) * TICK_MS;

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    timer = setInterval(() => {
      current = Math.floor(Date.now() / TICK_MS) * TICK_MS;
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (!listeners.size && timer) {
      clearInterval(timer);
      timer = null;
      listeners = new Set();
    }
  };
}
const getSnapshot = () => current;
const getServerSnapshot = () => 0;

/** The current time, ticking every 15 s; 0 while server-rendering or hydrating. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, getSnapshot, getServerSnapshot);
}

/** `where` is for tests and the page's language; the zone is always the viewer's own (undefined). */
type Where = { locale?: string; timeZone?: string };
const absolute = (w: Where = {}) =>
  new Intl.DateTimeFormat(w.locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
    timeZone: w.timeZone,
  });
const dayOnly = (locale?: string) => new Intl.DateTimeFormat(locale, { month: "short", day: "numeric" });
const clockOnly = (locale?: string) => new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" });

/** "Nov 30, 2026, 18:20:05 GMT+1" in the viewer's locale and zone. */
export function formatAbsolute(value: Date | string, where?: Where): string {
  return absolute(where).format(new Date(value));
}

/** The neutral text shown before the browser's zone is known: ISO minutes in UTC. */
export function formatUtc(value: Date | string): string {
  return `${new Date(value).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
];

/** "2 min ago", "in 5 sec", "yesterday": the largest unit that fits, in the viewer's language. */
export function formatRelative(value: Date | string, nowMs: number, where?: Where): string {
  const diff = new Date(value).getTime() - nowMs;
  const rtf = new Intl.RelativeTimeFormat(where?.locale, { numeric: "auto", style: "short" });
  if (Math.abs(diff) < 10_000) return rtf.format(0, "second");
  for (const [unit, ms] of UNITS)
    if (Math.abs(diff) >= ms || unit === "second") return rtf.format(Math.round(diff / ms), unit);
  return rtf.format(0, "second");
}

/** Chart axis labels: the day for week-long windows, the clock time otherwise; viewer's zone. */
export function formatAxis(value: Date | string, longWindow: boolean, locale?: string): string {
  return (longWindow ? dayOnly(locale) : clockOnly(locale)).format(new Date(value));
}

/**
 * A point in time. `relative` shows "2 min ago" (kept fresh) for things whose recency matters:
 * last seen, last run, feeds. The absolute time is always in the tooltip and `dateTime`.
 */
export function Time({
  value,
  relative = false,
  className,
}: {
  value: Date | string | null | undefined;
  relative?: boolean;
  className?: string;
}) {
  const nowMs = useNow();
  const locale = useLocale();
  if (value === null || value === undefined) return <span className={className}>—</span>;
  const iso = new Date(value).toISOString();
  const ready = nowMs > 0;
  const abs = ready ? formatAbsolute(iso, { locale }) : formatUtc(iso);
  return (
    <time dateTime={iso} title={abs} className={className}>
      {relative && ready ? formatRelative(iso, nowMs, { locale }) : abs}
    </time>
  );
}
