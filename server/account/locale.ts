import { getDb } from "../db";
import type { Locale } from "../i18n/locales";

/** Saves the learner's language (User.locale); the next page they load is in it. */
export async function setUserLocale(userId: string, locale: Locale): Promise<{ locale: Locale }> {
  await getDb().user.update({ where: { id: userId }, data: { locale } });
  return { locale };
}
