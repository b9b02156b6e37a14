import { getTranslations } from "next-intl/server";

/** The single sign-on button (only when OIDC_* is configured): a plain form, so it works without JavaScript. */
export async function SsoButton({ provider, returnTo }: { provider: string; returnTo: string }) {
  const t = await getTranslations("sso");
  return (
    <form method="post" action="/api/auth/sso-start" className="mt-6" aria-label={t("formLabel")}>
      <input type="hidden" name="next" value={returnTo} />
      <button type="submit" className="w-full rounded border border-slate-900 px-3 py-2">
        {t("button", { provider })}
      </button>
      <p className="mt-4 text-center text-xs text-slate-500">{t("or")}</p>
    </form>
  );
}
