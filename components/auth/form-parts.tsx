"use client";

import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";

/** What the sign-in and password forms share: fields, the POST that goes on on success, the error line and button. */
export function Field({ label, ...input }: { label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="block">
      <span className="text-sm font-medium">{label}</span>
      <input required className="mt-1 w-full rounded border px-3 py-2" {...input} />
    </label>
  );
}

/** A new password's field (the invitation, sign-up and change forms): the one password rule's lengths. */
export function NewPasswordField({ label, name }: { label: string; name: string }) {
  return (
    <Field
      label={label}
      name={name}
      type="password"
      autoComplete="new-password"
      minLength={MIN_PASSWORD_LENGTH}
      maxLength={MAX_PASSWORD_LENGTH}
    />
  );
}

/**
 * Posts JSON and, on success, replaces the page with `returnTo`; otherwise shows the message
 * `failure` makes of the answer. The credentials travel in the POST body only.
 */
export function usePostThenGo(returnTo: string, initialError: string | null = null) {
  const t = useTranslations("common");
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function post(url: string, body: unknown, failure: (status: number, answer: unknown) => string) {
    setPending(true);
    setError(null);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.ok) {
        router.replace(returnTo);
        router.refresh();
        return;
      }
      setError(failure(res.status, await res.json().catch(() => null)));
    } catch {
      setError(t("serverUnreachable"));
    } finally {
      setPending(false);
    }
  }
  return { error, setError, pending, post };
}

export function FormEnd({
  error,
  pending,
  idle,
  busy,
}: {
  error: string | null;
  pending: boolean;
  idle: string;
  busy: string;
}) {
  return (
    <>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded bg-slate-900 px-3 py-2 text-white disabled:opacity-50"
      >
        {pending ? busy : idle}
      </button>
    </>
  );
}
