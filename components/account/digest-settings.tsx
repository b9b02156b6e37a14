"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf } from "@/components/learner/labels";

/** The daily review digest by email: opt in, at which local hour; says so when this server cannot send mail. */
export function DigestSettings() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.account.digest.queryOptions());
  return settings.data ? <DigestForm d={settings.data} /> : null;
}

type Settings = { optIn: boolean; hour: number; mailConfigured: boolean; quietStart: number; quietEnd: number };
type Saved = { optIn: boolean; hour: number; sendHour: number };

/** What was saved, with the hour the server will really send at (moved out of quiet hours if need be). */
function savedText(t: ReturnType<typeof useTranslations<"digest">>, saved: Saved) {
  if (!saved.optIn) return t("savedOff");
  if (saved.sendHour !== saved.hour) return t("savedMoved", { hour: saved.hour, sendHour: saved.sendHour });
  return t("savedOn", { hour: saved.hour });
}

/** A refused save in the learner's language, by the server's error code (never the server's own text). */
function errorText(t: ReturnType<typeof useTranslations<"digest">>, error: unknown) {
  return appCodeOf(error) === "INVALID_REQUEST" ? t("errorInvalid") : t("errorOther");
}

function DigestForm({ d }: { d: Settings }) {
  const t = useTranslations("digest");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [optIn, setOptIn] = useState(d.optIn);
  const [hour, setHour] = useState(d.hour);
  const id = useId();
  const save = useMutation(
    trpc.account.setDigest.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.account.digest.queryKey(), data),
    }),
  );
  return (
    <section aria-labelledby={`${id}-h`} className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <h2 id={`${id}-h`} className="text-lg font-semibold">
        {t("title")}
      </h2>
      {!d.mailConfigured && (
        <p className="mt-1 text-sm text-amber-800" data-testid="digest-no-smtp">
          {t("noSmtp")}
        </p>
      )}
      <form
        className="mt-2 grid gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ optIn, hour, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });
        }}
      >
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="checkbox" checked={optIn} onChange={(e) => setOptIn(e.target.checked)} />
          {t("optIn")}
        </label>
        <div>
          <label htmlFor={`${id}-hour`} className="block text-sm text-slate-700">
            {t("hour")}
          </label>
          <select
            id={`${id}-hour`}
            value={hour}
            onChange={(e) => setHour(Number(e.target.value))}
            className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-base"
          >
            {Array.from({ length: 24 }, (_, h) => (
              <option key={h} value={h}>
                {`${String(h).padStart(2, "0")}:00`}
              </option>
            ))}
          </select>
          <p className="mt-1 text-xs text-slate-600">{t("quiet", { start: d.quietStart, end: d.quietEnd })}</p>
        </div>
        <div>
          <button
            type="submit"
            disabled={save.isPending}
            className="rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
          >
            {t("save")}
          </button>
        </div>
      </form>
      <p role="status" className="mt-1 text-sm text-slate-700">
        {save.data ? savedText(t, save.data) : ""}
      </p>
      {save.error && (
        <p role="alert" className="mt-1 text-sm text-rose-700">
          {errorText(t, save.error)}
        </p>
      )}
    </section>
  );
}
