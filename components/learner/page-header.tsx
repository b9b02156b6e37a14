import Link from "next/link";
import { useTranslations } from "next-intl";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { LocaleSwitcher } from "@/components/locale-switcher";

export function PageHeader({ name, isAdmin }: { name: string; isAdmin: boolean }) {
  const t = useTranslations("header");
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <Link href="/" className="font-semibold text-slate-900">
          {t("brand")}
        </Link>
        <div className="flex flex-wrap items-center gap-3 text-sm">
          {isAdmin && (
            <Link href="/admin" className="text-indigo-700 underline-offset-2 hover:underline">
              {t("adminConsole")}
            </Link>
          )}
          <span className="hidden text-slate-600 sm:inline">{name}</span>
          <Link href="/account" className="text-indigo-700 underline-offset-2 hover:underline">
            {t("account")}
          </Link>
          <LocaleSwitcher signedIn />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
