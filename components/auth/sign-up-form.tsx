"use client";

import { useTranslations } from "next-intl";
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { signUpFormError, type SignUpFormError } from "@/server/auth/sign-up-errors";
import { Field, FormEnd, NewPasswordField, usePostThenGo } from "./form-parts";

/**
 * SIGNUP_MODE=open only: better-auth's /sign-up/email, which signs the new learner in; then the
 * learner page. Before hydration (or without JavaScript) the form posts itself to
 * /api/auth/sign-up-form, which answers with a redirect (back here with `?signup=CODE` on failure).
 * Either way a failure is worded from the catalogue, never better-auth's English.
 */
export function SignUpForm({ initialError }: { initialError?: SignUpFormError | null }) {
  const t = useTranslations("signUp");
  const say = (code: SignUpFormError) => t(`errors.${code}`, { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH });
  const { error, pending, post } = usePostThenGo("/", initialError ? say(initialError) : null);

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void post(
      "/api/auth/sign-up/email",
      { name: form.get("name"), email: form.get("email"), password: form.get("password") },
      (status, answer) => say(signUpFormError(status, (answer as { code?: unknown } | null)?.code)),
    );
  }

  return (
    <form
      method="post"
      action="/api/auth/sign-up-form"
      onSubmit={onSubmit}
      className="mt-4 space-y-4"
      aria-label={t("formLabel")}
    >
      <h2 className="text-lg font-semibold">{t("heading")}</h2>
      <Field label={t("name")} name="name" type="text" autoComplete="name" maxLength={100} />
      <Field label={t("email")} name="email" type="email" autoComplete="email" />
      <NewPasswordField label={t("password", { min: MIN_PASSWORD_LENGTH })} name="password" />
      <FormEnd error={error} pending={pending} idle={t("submit")} busy={t("busy")} />
    </form>
  );
}
