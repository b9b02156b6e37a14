/**
 * The learner-facing languages and how one is chosen for a request: the learner's saved choice
 * (User.locale), else the `locale` cookie (a choice made before signing in), else the browser's
 * Accept-Language, else English. Plain functions, so pages, the tRPC router and tests share them.
 */
export const LOCALES = ["en", "zh-CN"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";
/** Set by the language switcher in the browser; read on the next request. */
export const LOCALE_COOKIE = "locale";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * One BCP 47 tag to a supported language: any Chinese (zh, zh-Hans, zh-CN, zh-SG, and the
 * Traditional zh-TW/zh-HK, whose readers read Simplified far better than English) is zh-CN,
 * any English is en, anything else none.
 */
export function matchLocale(tag: string): Locale | null {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === "zh") return "zh-CN";
  if (primary === "en") return "en";
  return null;
}

/** The best supported language of an Accept-Language header, by its q-values; null when none fits. */
export function fromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .slice(0, 1024)
    .split(",")
    .map((part, order) => {
      const [tag = "", ...params] = part.split(";");
      // A malformed q-value counts as 0 (not wanted), never as the default 1.
      const q = params.map((p) => /^\s*q=(.*)$/.exec(p)?.[1]).find((v) => v !== undefined);
      const weight = q === undefined ? 1 : /^\s*[0-9.]+\s*$/.test(q) ? Number(q) : 0;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, order };
    })
    .filter((r) => r.tag && r.tag !== "*" && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  for (const r of ranked) {
    const locale = matchLocale(r.tag);
    if (locale) return locale;
  }
  return null;
}

export function resolveLocale(input: {
  saved?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
}): Locale {
  if (isLocale(input.saved)) return input.saved;
  if (isLocale(input.cookie)) return input.cookie;
  return fromAcceptLanguage(input.acceptLanguage) ?? DEFAULT_LOCALE;
}

/** The language one request resolves to from its headers (the saved choice, the `locale` cookie, Accept-Language). */
export function requestLocale(headers: Headers, saved?: string | null): Locale {
  const cookie = (headers.get("cookie") ?? "")
    .slice(0, 8192)
    .split(";")
    .map((c) => c.trim().split("="))
    .find(([name]) => name === LOCALE_COOKIE)?.[1];
  return resolveLocale({ saved, cookie, acceptLanguage: headers.get("accept-language") });
}

/** Each language by its own name (an autonym reads the same in every language's interface). */
export const LOCALE_NAMES: Record<Locale, string> = { en: "English", "zh-CN": "简体中文" };

/** A job's language as the console shows it: "简体中文 (zh-CN)". */
export function describeJobLocale(locale: string): string {
  return isLocale(locale) ? `${LOCALE_NAMES[locale]} (${locale})` : locale;
}

/** A learner's language as the (English) console shows it: "简体中文 (zh-CN)", or that none was chosen. */
export function describeLocale(saved: string | null | undefined): string {
  return isLocale(saved) ? `${LOCALE_NAMES[saved]} (${saved})` : "not chosen (follows the browser)";
}
