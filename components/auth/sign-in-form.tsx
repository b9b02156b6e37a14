"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/**
 * Before hydration (or without JavaScript) the form posts itself to /api/auth/sign-in-form, which
 * answers with a redirect; once hydrated, it posts to better-auth with fetch and stays on the
 * page to show errors. Either way the credentials are in a POST body, never in a URL, and the
 * session arrives as an http-only cookie, never in page script.
 */
export function SignInForm({ returnTo, initialError }: { returnTo: string; initialError?: string | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: form.get("email"), password: form.get("password") }),
      });
      if (res.ok) {
        router.replace(returnTo);
        router.refresh();
        return;
      }
      const body = (await res.json().catch(() => null)) as { message?: string } | null;
      setError(
        res.status === 401
          ? "Wrong email or password."
          : res.status === 429
            ? (body?.message ?? "Too many attempts; wait a while and try again.")
            : (body?.message ?? `Sign-in failed (${res.status}).`),
      );
    } catch {
      setError("Could not reach the server.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form method="post" action="/api/auth/sign-in-form" onSubmit={onSubmit} className="mt-6 space-y-4" aria-label="sign in">
      <input type="hidden" name="next" value={returnTo} />
      <label className="block">
        <span className="text-sm font-medium">Email</span>
        <input name="email" type="email" autoComplete="username" required className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      <label className="block">
        <span className="text-sm font-medium">Password</span>
        <input name="password" type="password" autoComplete="current-password" required className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <button type="submit" disabled={pending} className="w-full rounded bg-slate-900 px-3 py-2 text-white disabled:opacity-50">
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
