import { describe, expect, it } from "vitest";
import { formatAbsolute, formatRelative, formatUtc } from "@/components/time";

/** The one time format of every page: the viewer's zone and locale, relative where recency matters. */
const AT = "2026-11-30T18:20:05.000Z";
const NOW = new Date(AT).getTime();

describe("formatAbsolute", () => {
  it("is in the viewer's time zone and locale, with the zone named", () => {
    expect(formatAbsolute(AT, { locale: "en-US", timeZone: "Europe/Berlin" })).toBe("Nov 30, 2026, 07:20:05 PM GMT+1");
    expect(formatAbsolute(AT, { locale: "en-GB", timeZone: "Asia/Tokyo" })).toBe("1 Dec 2026, 03:20:05 GMT+9");
    expect(formatAbsolute(AT, { locale: "de-DE", timeZone: "America/New_York" })).toContain("30. Nov. 2026, 13:20:05");
  });

  it("shows a neutral UTC text before the viewer's zone is known", () => {
    expect(formatUtc(AT)).toBe("2026-11-30 18:20 UTC");
  });
});

describe("formatRelative", () => {
  const at = (ms: number) => new Date(NOW + ms).toISOString();
  it("picks the largest unit that fits, past and future, in the viewer's language", () => {
    expect(formatRelative(at(-3_000), NOW, { locale: "en" })).toBe("now");
    expect(formatRelative(at(-45_000), NOW, { locale: "en" })).toBe("45 sec. ago");
    expect(formatRelative(at(-2 * 60_000), NOW, { locale: "en" })).toBe("2 min. ago");
    expect(formatRelative(at(-3 * 3_600_000), NOW, { locale: "en" })).toBe("3 hr. ago");
    expect(formatRelative(at(-86_400_000), NOW, { locale: "en" })).toBe("yesterday");
    expect(formatRelative(at(5 * 60_000), NOW, { locale: "en" })).toBe("in 5 min.");
    // French separates with a no-break space.
    expect(formatRelative(at(-2 * 60_000), NOW, { locale: "fr" }).replace(/\s/g, " ")).toBe("il y a 2 min");
  });
});
