"use client";

import { useMutation } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { isLocale, LOCALE_COOKIE, LOCALE_NAMES, LOCALES, type Locale } from "@/server/i18n/locales";

const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * The language picker. Signed in, the choice is saved on the account (account.setLocale) and
 * follows the learner to every device; it is also kept in a cookie, so the sign-in page speaks
 * it after signing out. The page then re-renders on the server in the new language.
 */
export function LocaleSwitcher({ signedIn }: { signedIn: boolean }) {
  const t = useTranslations("language");
  const locale = useLocale();
  const router = useRouter();
  const trpc = useTRPC();
  const id = useId();
  const [failed, setFailed] = useState(false);
  const save = useMutation(trpc.account.setLocale.mutationOptions());

  async function choose(next: Locale) {
    setFailed(false);
    try {
      if (signedIn) await save.mutateAsync({ locale: next });
    } catch {
      setFailed(true);
      return;
    }
    document.cookie = `${LOCALE_COOKIE}=${next}; path=/; max-age=${YEAR_SECONDS}; samesite=lax`;
    router.refresh();
  }

  return (
    <span className="inline-flex items-center gap-1 text-sm">
      <label htmlFor={id} className="sr-only">
        {t("label")}
      </label>
      <select
        id={id}
        value={locale}
        lang={locale}
        data-testid="locale-switcher"
        aria-disabled={save.isPending || undefined}
        onChange={(e) => isLocale(e.target.value) && void choose(e.target.value)}
        className="rounded border border-slate-300 bg-white px-2 py-1 text-sm"
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
      {failed && (
        <span role="alert" className="text-xs text-rose-700">
          {t("saveError")}
        </span>
      )}
    </span>
  );
}
