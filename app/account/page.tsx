import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { DataRights } from "@/components/account/data-rights";
import { DigestSettings } from "@/components/account/digest-settings";
import { PageHeader } from "@/components/learner/page-header";
import { requirePageSession } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/** The signed-in user's account: password, download of their data, deletion of the account. */
export default async function AccountPage() {
  const { user } = await requirePageSession("/account");
  const t = await getTranslations("account");
  return (
    <>
      <PageHeader name={user.name} isAdmin={user.role === "admin"} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-2xl space-y-6 px-4 py-6 focus:outline-none">
        <div>
          <h1 className="text-2xl font-semibold">{t("title")}</h1>
          <p className="mt-1 text-sm text-slate-600">
            {t("signedInAs", { email: user.email })}{" "}
            <Link href="/account/password" className="text-indigo-700 underline">
              {t("changePassword")}
            </Link>
          </p>
        </div>
        <DigestSettings />
        <DataRights email={user.email} isAdmin={user.role === "admin"} />
      </main>
    </>
  );
}
