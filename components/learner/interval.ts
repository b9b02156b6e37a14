/**
 * A rating button's interval as Anki shows it: "<1 min", "10 min", "3 h", "4 days", "2.5 mo",
 * "1.2 yr" — in the page's language (Intl's unit names).
 */
export function formatInterval(ms: number, locale: string, lessThanMinute: string): string {
  const minutes = ms / 60_000;
  if (minutes < 1) return lessThanMinute;
  const steps: [Intl.NumberFormatOptions["unit"], number, number][] = [
    ["minute", 1, 60],
    ["hour", 60, 24 * 60],
    ["day", 24 * 60, 30 * 24 * 60],
    ["month", 30 * 24 * 60, 365 * 24 * 60],
    ["year", 365 * 24 * 60, Infinity],
  ];
  const [unit, size] = steps.find(([, , below]) => minutes < below)!;
  const value = minutes / size;
  return new Intl.NumberFormat(locale, {
    style: "unit",
    unit,
    unitDisplay: "short",
    maximumFractionDigits: unit === "month" || unit === "year" ? 1 : 0,
  }).format(unit === "month" || unit === "year" ? value : Math.round(value));
}
