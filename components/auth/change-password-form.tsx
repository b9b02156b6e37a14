"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Calls account.changePassword (tRPC over plain fetch: one mutation, no client cache needed). */
export function ChangePasswordForm({ returnTo }: { returnTo: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (form.get("newPassword") !== form.get("repeat")) return setError("The two new passwords differ.");
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/trpc/account.changePassword", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ currentPassword: form.get("currentPassword"), newPassword: form.get("newPassword") }),
      });
      if (res.ok) {
        router.replace(returnTo);
        router.refresh();
        return;
      }
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      setError(body?.error?.message ?? `Could not change the password (${res.status}).`);
    } catch {
      setError("Could not reach the server.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" aria-label="change password">
      <label className="block">
        <span className="text-sm font-medium">Current (one-time) password</span>
        <input name="currentPassword" type="password" autoComplete="current-password" required className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      <label className="block">
        <span className="text-sm font-medium">New password (at least 12 characters)</span>
        <input name="newPassword" type="password" autoComplete="new-password" minLength={12} required className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      <label className="block">
        <span className="text-sm font-medium">New password again</span>
        <input name="repeat" type="password" autoComplete="new-password" minLength={12} required className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <button type="submit" disabled={pending} className="w-full rounded bg-slate-900 px-3 py-2 text-white disabled:opacity-50">
        {pending ? "Saving…" : "Save and continue"}
      </button>
    </form>
  );
}
