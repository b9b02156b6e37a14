"use client";

import { useTranslations } from "next-intl";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field, FormEnd, NewPasswordField, usePostThenGo } from "./form-parts";

/** Calls account.changePassword (tRPC over plain fetch: one mutation, no client cache needed). */
export function ChangePasswordForm({ returnTo }: { returnTo: string }) {
  const t = useTranslations("password");
  const { error, setError, pending, post } = usePostThenGo(returnTo);

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (form.get("newPassword") !== form.get("repeat")) return setError(t("differ"));
    const body = { currentPassword: form.get("currentPassword"), newPassword: form.get("newPassword") };
    void post(
      "/api/trpc/account.changePassword",
      body,
      (status, answer) =>
        (answer as { error?: { message?: string } } | null)?.error?.message ?? t("failed", { status }),
    );
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" aria-label={t("formLabel")}>
      <Field label={t("current")} name="currentPassword" type="password" autoComplete="current-password" />
      <NewPasswordField label={t("new", { min: MIN_PASSWORD_LENGTH })} name="newPassword" />
      <NewPasswordField label={t("repeat")} name="repeat" />
      <FormEnd error={error} pending={pending} idle={t("submit")} busy={t("busy")} />
    </form>
  );
}
