"use client";

import { Field, FormEnd, usePostThenGo } from "./form-parts";

/**
 * Before hydration (or without JavaScript) the form posts itself to /api/auth/sign-in-form, which
 * answers with a redirect; once hydrated, it posts to better-auth with fetch and stays on the
 * page to show errors. Either way the credentials are in a POST body, never in a URL, and the
 * session arrives as an http-only cookie, never in page script.
 */
export function SignInForm({ returnTo, initialError }: { returnTo: string; initialError?: string | null }) {
  const { error, pending, post } = usePostThenGo(returnTo, initialError ?? null);

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void post(
      "/api/auth/sign-in/email",
      { email: form.get("email"), password: form.get("password") },
      (status, answer) => {
        const message = (answer as { message?: string } | null)?.message;
        if (status === 401) return "Wrong email or password.";
        if (status === 429) return message ?? "Too many attempts; wait a while and try again.";
        return message ?? `Sign-in failed (${status}).`;
      },
    );
  }

  return (
    <form
      method="post"
      action="/api/auth/sign-in-form"
      onSubmit={onSubmit}
      className="mt-6 space-y-4"
      aria-label="sign in"
    >
      <input type="hidden" name="next" value={returnTo} />
      <Field label="Email" name="email" type="email" autoComplete="username" />
      <Field label="Password" name="password" type="password" autoComplete="current-password" />
      <FormEnd error={error} pending={pending} idle="Sign in" busy="Signing in…" />
    </form>
  );
}
