"use client";

import { MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field, FormEnd, usePostThenGo } from "./form-parts";

/** Calls account.changePassword (tRPC over plain fetch: one mutation, no client cache needed). */
export function ChangePasswordForm({ returnTo }: { returnTo: string }) {
  const { error, setError, pending, post } = usePostThenGo(returnTo);

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (form.get("newPassword") !== form.get("repeat")) return setError("The two new passwords differ.");
    const body = { currentPassword: form.get("currentPassword"), newPassword: form.get("newPassword") };
    void post(
      "/api/trpc/account.changePassword",
      body,
      (status, answer) =>
        (answer as { error?: { message?: string } } | null)?.error?.message ??
        `Could not change the password (${status}).`,
    );
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" aria-label="change password">
      <Field
        label="Current (one-time) password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
      />
      <Field
        label={`New password (at least ${MIN_PASSWORD_LENGTH} characters)`}
        name="newPassword"
        type="password"
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
      />
      <Field
        label="New password again"
        name="repeat"
        type="password"
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
      />
      <FormEnd error={error} pending={pending} idle="Save and continue" busy="Saving…" />
    </form>
  );
}
