import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { getSession } from "@/server/auth/session";
import { LOCALE_COOKIE, resolveLocale, type Locale } from "@/server/i18n/locales";

/**
 * next-intl's per-request configuration (found by the plugin in next.config.js). No locale in the
 * URL: the app's routes are fixed (/, /account, /sign-in, /jobs/…), so the language comes from
 * the learner's saved choice, else the `locale` cookie, else Accept-Language, else English.
 */
export default getRequestConfig(async () => {
  const requestHeaders = await headers();
  const session = await getSession(requestHeaders).catch(() => null);
  const locale = resolveLocale({
    saved: session?.user.locale,
    cookie: (await cookies()).get(LOCALE_COOKIE)?.value,
    acceptLanguage: requestHeaders.get("accept-language"),
  });
  return { locale, messages: await loadMessages(locale) };
});

export async function loadMessages(locale: Locale) {
  return locale === "zh-CN"
    ? (await import("../messages/zh-CN.json")).default
    : (await import("../messages/en.json")).default;
}
