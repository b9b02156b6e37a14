"use client";

import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";

export function SignOutButton() {
  const t = useTranslations("header");
  const router = useRouter();
  async function signOut() {
    await fetch("/api/auth/sign-out", { method: "POST" });
    router.replace("/sign-in");
    router.refresh();
  }
  return (
    <button type="button" onClick={signOut} className="rounded border px-3 py-1 text-sm">
      {t("signOut")}
    </button>
  );
}
