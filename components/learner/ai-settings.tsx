"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf, explainError } from "./labels";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/** AI consent (docs/contract.md#consent-credentials-and-cancellation) and which DeepSeek key pays for the analyses. */
export function AiSettings() {
  const t = useTranslations("aiSettings");
  const tErrors = useTranslations("errors");
  const tCommon = useTranslations("common");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const consent = useQuery(trpc.consent.get.queryOptions());
  const credential = useQuery(trpc.credentials.get.queryOptions());
  const [notice, setNotice] = useState<string | null>(null);
  const [keyText, setKeyText] = useState("");
  const refresh = () =>
    Promise.all([
      refreshAfterWrite(queryClient, trpc.consent.pathFilter()),
      refreshAfterWrite(queryClient, trpc.credentials.pathFilter()),
      refreshAfterWrite(queryClient, trpc.jobs.pathFilter()),
    ]);
  const onError = (e: { message: string }) => setNotice(explainError(tErrors, appCodeOf(e), e.message));

  const setConsent = useMutation(
    trpc.consent.set.mutationOptions({
      onSuccess: (r) => {
        setNotice(
          r.granted
            ? t("on")
            : r.cancelRequested
              ? t("offAndStopping", { cancelled: r.cancelled, stopping: r.cancelRequested })
              : t("off", { cancelled: r.cancelled }),
        );
        void refresh();
      },
      onError,
    }),
  );
  const setMode = useMutation(
    trpc.consent.setApiKeyMode.mutationOptions({
      onSuccess: () => {
        setNotice(null);
        void refresh();
      },
      onError,
    }),
  );
  const saveKey = useMutation(
    trpc.credentials.set.mutationOptions({
      onSuccess: async () => {
        setKeyText("");
        await setMode.mutateAsync({ apiKeyMode: "user_deepseek_key" });
        setNotice(t("keySaved"));
      },
      onError,
    }),
  );
  const deleteKey = useMutation(
    trpc.credentials.delete.mutationOptions({
      onSuccess: () => {
        setNotice(t("keyDeleted"));
        void refresh();
      },
      onError,
    }),
  );

  const granted = consent.data?.granted ?? false;
  const mode = consent.data?.apiKeyMode ?? "platform_key";

  return (
    <section aria-labelledby="settings-heading" className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <h2 id="settings-heading" className="text-lg font-semibold">
        {t("heading")}
      </h2>
      {consent.isLoading && <p className="mt-2 text-sm text-slate-600">{tCommon("loading")}</p>}
      {consent.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("loadError")}
        </p>
      )}
      {consent.data && (
        <>
          <div className="mt-3 flex items-start justify-between gap-3">
            <div>
              <p id="consent-label" className="font-medium">
                {t("consentLabel")}
              </p>
              <p id="consent-help" className="text-sm text-slate-600">
                {t("consentHelp")}
              </p>
            </div>
            <button
              type="button"
              role="switch"
              aria-checked={granted}
              aria-labelledby="consent-label"
              aria-describedby="consent-help"
              // Not disabled while saving: that would drop keyboard focus to <body>.
              aria-disabled={setConsent.isPending || undefined}
              onClick={() => !setConsent.isPending && setConsent.mutate({ granted: !granted })}
              className={`relative mt-1 inline-flex h-7 w-12 shrink-0 rounded-full transition focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${granted ? "bg-indigo-600" : "bg-slate-300"}`}
            >
              <span
                className={`absolute top-1 h-5 w-5 rounded-full bg-white shadow transition ${granted ? "left-6" : "left-1"}`}
              />
            </button>
          </div>

          <fieldset className="mt-4">
            <legend className="font-medium">{t("keyLegend")}</legend>
            <label className="mt-2 flex items-start gap-2 text-sm">
              <input
                type="radio"
                name="key-mode"
                checked={mode === "platform_key"}
                onChange={() => setMode.mutate({ apiKeyMode: "platform_key" })}
                className="mt-1 accent-indigo-600"
              />
              <span>{t.rich("platformKey", { b: (chunks) => <span className="font-medium">{chunks}</span> })}</span>
            </label>
            <label className="mt-2 flex items-start gap-2 text-sm">
              <input
                type="radio"
                name="key-mode"
                checked={mode === "user_deepseek_key"}
                disabled={!credential.data}
                onChange={() => setMode.mutate({ apiKeyMode: "user_deepseek_key" })}
                className="mt-1 accent-indigo-600"
              />
              <span>
                <span className="font-medium">{t("ownKey")}</span>
                {credential.data ? (
                  <span className="text-slate-600" data-testid="masked-key">
                    {t.rich("savedEnding", {
                      last4: credential.data.last4,
                      mono: (chunks) => <span className="font-mono">{chunks}</span>,
                    })}
                  </span>
                ) : (
                  <span className="text-slate-600">{t("saveFirst")}</span>
                )}
              </span>
            </label>
          </fieldset>

          <form
            className="mt-3 flex flex-col gap-2 sm:flex-row"
            onSubmit={(e) => {
              e.preventDefault();
              saveKey.mutate({ apiKey: keyText.trim() });
            }}
          >
            <label htmlFor="deepseek-key" className="sr-only">
              {t("keyLabel")}
            </label>
            <input
              id="deepseek-key"
              type="password"
              autoComplete="off"
              placeholder={credential.data ? t("replacePlaceholder") : t("newPlaceholder")}
              value={keyText}
              onChange={(e) => setKeyText(e.target.value)}
              className="min-w-0 flex-1 rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            />
            <button
              type="submit"
              disabled={!keyText.trim() || saveKey.isPending}
              className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
            >
              {t("saveKey")}
            </button>
            {credential.data && (
              <button
                type="button"
                onClick={() => deleteKey.mutate()}
                className="rounded-md px-3 py-1.5 text-sm text-rose-700 ring-1 ring-rose-200"
              >
                {t("deleteKey")}
              </button>
            )}
          </form>
          <p className="mt-1 text-xs text-slate-600">{t("stored")}</p>
        </>
      )}
      <div role="status" aria-live="polite">
        {notice && (
          <p className="mt-3 rounded-lg bg-slate-50 p-2 text-sm text-slate-800 ring-1 ring-slate-200">{notice}</p>
        )}
      </div>
    </section>
  );
}
