import { getLocale, getTranslations } from "next-intl/server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { LocaleSwitcher } from "@/components/locale-switcher";
import { isSignInFormError } from "@/server/auth/form-sign-in";
import { safeReturnPath } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";

export const dynamic = "force-dynamic";

/** In the visitor's language: the `locale` cookie (the switcher here), else Accept-Language, else English. */
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const returnTo = safeReturnPath(params.next);
  // Set by the no-JavaScript form post (server/auth/form-sign-in.ts); only known codes are shown.
  const code = isSignInFormError(params.error) ? params.error : null;
  if (await getSession(await headers())) redirect(returnTo);
  const t = await getTranslations("signIn");
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-sm p-8 focus:outline-none">
      <div className="flex justify-end">
        <LocaleSwitcher signedIn={false} />
      </div>
      <h1 className="mt-2 text-2xl font-semibold">{t("title")}</h1>
      <p className="mt-2 text-sm text-slate-600">{t("intro")}</p>
      {params.deleted === "1" && (
        <p role="status" className="mt-3 rounded-lg bg-emerald-50 p-3 text-sm text-emerald-900 ring-1 ring-emerald-200">
          {t("accountDeleted")}
        </p>
      )}
      {/* Keyed by language: a switch re-renders the page, and the form's error line must follow it. */}
      <SignInForm key={await getLocale()} returnTo={returnTo} initialError={code ? t(`errors.${code}`) : null} />
    </main>
  );
}
