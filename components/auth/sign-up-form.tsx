"use client";

import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field, FormEnd, usePostThenGo } from "./form-parts";

/** Every learner-facing line of the sign-up form, in one place (for the zh-CN/en catalogues). */
export const SIGN_UP_TEXT = {
  heading: "New here? Create an account",
  name: "Your name",
  email: "Email",
  password: `Password (at least ${MIN_PASSWORD_LENGTH} characters)`,
  submit: "Create account",
  busy: "Creating…",
  failed: (status: number) => `Sign-up failed (${status}).`,
};

/** SIGNUP_MODE=open only: better-auth's /sign-up/email, which signs the new learner in; then the learner page. */
export function SignUpForm() {
  const { error, pending, post } = usePostThenGo("/");

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void post(
      "/api/auth/sign-up/email",
      { name: form.get("name"), email: form.get("email"), password: form.get("password") },
      (status, answer) => (answer as { message?: string } | null)?.message ?? SIGN_UP_TEXT.failed(status),
    );
  }

  return (
    <form onSubmit={onSubmit} className="mt-4 space-y-4" aria-label="sign up">
      <h2 className="text-lg font-semibold">{SIGN_UP_TEXT.heading}</h2>
      <Field label={SIGN_UP_TEXT.name} name="name" type="text" autoComplete="name" maxLength={100} />
      <Field label={SIGN_UP_TEXT.email} name="email" type="email" autoComplete="email" />
      <Field
        label={SIGN_UP_TEXT.password}
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
        maxLength={MAX_PASSWORD_LENGTH}
      />
      <FormEnd error={error} pending={pending} idle={SIGN_UP_TEXT.submit} busy={SIGN_UP_TEXT.busy} />
    </form>
  );
}
