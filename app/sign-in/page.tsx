import { getLocale, getTranslations } from "next-intl/server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { LocaleSwitcher } from "@/components/locale-switcher";
import { isSignInFormError } from "@/server/auth/form-sign-in";
import { safeReturnPath } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { isSignUpFormError } from "@/server/auth/sign-up-errors";
import { SsoButton } from "@/components/auth/sso-button";
import { oidcConfig, signupConfig } from "@/server/config";

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
  // Single sign-on's callback adds its own codes (better-auth's, e.g. state_not_found): any other is "SSO_FAILED".
  const code =
    typeof params.error === "string" ? (isSignInFormError(params.error) ? params.error : "SSO_FAILED") : null;
  const sso = oidcConfig();
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
      {sso && <SsoButton provider={sso.name} returnTo={returnTo} />}
      {/* Keyed by language: a switch re-renders the page, and the form's error line must follow it. */}
      <SignInForm key={await getLocale()} returnTo={returnTo} initialError={code ? t(`errors.${code}`) : null} />
      {signupConfig.mode === "open" && (
        <SignUpForm
          key={`signup-${await getLocale()}`}
          initialError={isSignUpFormError(params.signup) ? params.signup : null}
        />
      )}
    </main>
  );
}
