"use client";

import { useTranslations } from "next-intl";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field, FormEnd, NewPasswordField, usePostThenGo } from "./form-parts";

/** SIGNUP_MODE=open only: better-auth's /sign-up/email, which signs the new learner in; then the learner page. */
export function SignUpForm() {
  const t = useTranslations("signUp");
  const { error, pending, post } = usePostThenGo("/");

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void post(
      "/api/auth/sign-up/email",
      { name: form.get("name"), email: form.get("email"), password: form.get("password") },
      (status, answer) => (answer as { message?: string } | null)?.message ?? t("failed", { status }),
    );
  }

  return (
    <form onSubmit={onSubmit} className="mt-4 space-y-4" aria-label={t("formLabel")}>
      <h2 className="text-lg font-semibold">{t("heading")}</h2>
      <Field label={t("name")} name="name" type="text" autoComplete="name" maxLength={100} />
      <Field label={t("email")} name="email" type="email" autoComplete="email" />
      <NewPasswordField label={t("password", { min: MIN_PASSWORD_LENGTH })} name="password" />
      <FormEnd error={error} pending={pending} idle={t("submit")} busy={t("busy")} />
    </form>
  );
}
