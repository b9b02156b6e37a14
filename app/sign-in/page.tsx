import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { SIGN_IN_FORM_MESSAGES, type SignInFormError } from "@/server/auth/form-sign-in";
import { safeReturnPath } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { SsoButton } from "@/components/auth/sso-button";
import { oidcConfig, signupConfig } from "@/server/config";

export const dynamic = "force-dynamic";

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
    typeof params.error === "string"
      ? Object.hasOwn(SIGN_IN_FORM_MESSAGES, params.error)
        ? (params.error as SignInFormError)
        : "SSO_FAILED"
      : null;
  const sso = oidcConfig();
  if (await getSession(await headers())) redirect(returnTo);
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-sm p-8 focus:outline-none">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <p className="mt-2 text-sm text-slate-600">AI Job Runtime: learners and admins.</p>
      {params.deleted === "1" && (
        <p role="status" className="mt-3 rounded-lg bg-emerald-50 p-3 text-sm text-emerald-900 ring-1 ring-emerald-200">
          Your account and all your data have been deleted.
        </p>
      )}
      {sso && <SsoButton provider={sso.name} returnTo={returnTo} />}
      <SignInForm returnTo={returnTo} initialError={code ? SIGN_IN_FORM_MESSAGES[code] : null} />
      {signupConfig.mode === "open" && <SignUpForm />}
    </main>
  );
}
