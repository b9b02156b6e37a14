import { getTranslations } from "next-intl/server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { ChangePasswordForm } from "@/components/auth/change-password-form";
import { LocaleSwitcher } from "@/components/locale-switcher";
import { safeReturnPath } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";

export const dynamic = "force-dynamic";

/** Where a one-time password (npm run admin:create) must be replaced before anything else opens. */
export default async function ChangePasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const returnTo = safeReturnPath((await searchParams).next);
  const session = await getSession(await headers());
  if (!session) redirect(`/sign-in?next=${encodeURIComponent("/account/password")}`);
  const t = await getTranslations("password");
  return (
    <main className="mx-auto max-w-sm p-8">
      <div className="flex justify-end">
        <LocaleSwitcher signedIn />
      </div>
      <h1 className="mt-2 text-2xl font-semibold">{t("title")}</h1>
      <p className="mt-2 text-sm text-slate-600">
        {session.user.mustChangePassword ? t("oneTime") : t("signedInAs", { email: session.user.email })}
      </p>
      <ChangePasswordForm returnTo={returnTo} />
    </main>
  );
}
