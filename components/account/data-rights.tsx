"use client";

import { useTranslations } from "next-intl";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";

/** Every learner-facing sentence of this component, from the catalogues (messages/*.json, "dataRights"). */
function useText() {
  const t = useTranslations("dataRights");
  return {
    downloadHeading: t("downloadHeading"),
    downloadBody: t("downloadBody"),
    download: t("download"),
    deleteHeading: t("deleteHeading"),
    deleteBody: t("deleteBody"),
    adminNote: t("adminNote"),
    confirmLabel: (email: string) => t("confirmLabel", { email }),
    delete: t("delete"),
    deleting: t("deleting"),
  };
}

/** The account page's data rights: download everything, or delete the account (typed confirmation). */
export function DataRights({ email, isAdmin }: { email: string; isAdmin: boolean }) {
  const TEXT = useText();
  const trpc = useTRPC();
  const router = useRouter();
  const [typed, setTyped] = useState("");
  const erase = useMutation(
    trpc.account.erase.mutationOptions({
      // The sessions are gone with the account: leave for the sign-in page.
      onSuccess: () => {
        router.replace("/sign-in?deleted=1");
        router.refresh();
      },
    }),
  );
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  return (
    <div className="space-y-6">
      <section aria-labelledby="download-heading" className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 id="download-heading" className="text-lg font-semibold">
          {TEXT.downloadHeading}
        </h2>
        <p className="mt-1 text-sm text-slate-600">{TEXT.downloadBody}</p>
        <a
          href="/api/account/export"
          download
          className="mt-3 inline-block rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-700"
        >
          {TEXT.download}
        </a>
      </section>
      <section aria-labelledby="delete-heading" className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-rose-200">
        <h2 id="delete-heading" className="text-lg font-semibold text-rose-800">
          {TEXT.deleteHeading}
        </h2>
        <p className="mt-1 text-sm text-slate-600">{TEXT.deleteBody}</p>
        {isAdmin ? (
          <p className="mt-3 text-sm text-slate-700">{TEXT.adminNote}</p>
        ) : (
          <form
            className="mt-3 space-y-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (matches && !erase.isPending) erase.mutate({ confirmEmail: typed });
            }}
          >
            <label className="block text-sm text-slate-700">
              {TEXT.confirmLabel(email)}
              <input
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                autoComplete="off"
                className="mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 text-base"
              />
            </label>
            <button
              type="submit"
              disabled={!matches}
              className="rounded-lg bg-rose-700 px-4 py-2 text-sm font-semibold text-white hover:bg-rose-800 disabled:cursor-not-allowed disabled:opacity-50"
            >
              {erase.isPending ? TEXT.deleting : TEXT.delete}
            </button>
            {erase.error && (
              <p role="alert" className="text-sm text-rose-700">
                {erase.error.message}
              </p>
            )}
          </form>
        )}
      </section>
    </div>
  );
}
