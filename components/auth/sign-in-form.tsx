"use client";

import { useTranslations } from "next-intl";
import { Field, FormEnd, usePostThenGo } from "./form-parts";

/**
 * Before hydration (or without JavaScript) the form posts itself to /api/auth/sign-in-form, which
 * answers with a redirect; once hydrated, it posts to better-auth with fetch and stays on the
 * page to show errors. Either way the credentials are in a POST body, never in a URL, and the
 * session arrives as an http-only cookie, never in page script.
 */
export function SignInForm({ returnTo, initialError }: { returnTo: string; initialError?: string | null }) {
  const t = useTranslations("signIn");
  const { error, pending, post } = usePostThenGo(returnTo, initialError ?? null);

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void post("/api/auth/sign-in/email", { email: form.get("email"), password: form.get("password") }, (status) => {
      // better-auth's own messages are English: the learner gets the catalogue's sentence instead.
      if (status === 401) return t("errors.wrong");
      if (status === 429) return t("errors.locked");
      if (status === 403) return t("errors.refused");
      return t("errors.status", { status });
    });
  }

  return (
    <form
      method="post"
      action="/api/auth/sign-in-form"
      onSubmit={onSubmit}
      className="mt-6 space-y-4"
      aria-label={t("formLabel")}
    >
      <input type="hidden" name="next" value={returnTo} />
      <Field label={t("email")} name="email" type="email" autoComplete="username" />
      <Field label={t("password")} name="password" type="password" autoComplete="current-password" />
      <FormEnd error={error} pending={pending} idle={t("submit")} busy={t("busy")} />
    </form>
  );
}
