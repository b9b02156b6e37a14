"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/**
 * A finished knowledge_point_extraction job's proposals, to review: each with its summary, key
 * terms and the passage of the material it comes from. The learner ticks some and accepts them;
 * they become the material's knowledge points (ones it already has are shown, not offered).
 */
export function KnowledgePointProposals({ jobId }: { jobId: string }) {
  const t = useTranslations("kpProposals");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.materials.proposals.queryOptions({ jobId }));
  const [ticked, setTicked] = useState<number[]>([]);
  const accept = useMutation(
    trpc.materials.acceptProposals.mutationOptions({
      onSuccess: async () => {
        setTicked([]);
        await Promise.all([
          refreshAfterWrite(queryClient, trpc.materials.pathFilter()),
          refreshAfterWrite(queryClient, trpc.targets.list.pathFilter()),
        ]);
      },
    }),
  );

  if (list.error)
    return (
      <p role="alert" className="text-sm text-rose-700">
        {t("loadError", { message: list.error.message })}
      </p>
    );
  if (!list.data) return null;
  const { proposals, materialExists } = list.data;
  const open = proposals.filter((p) => !p.present);
  const toggle = (i: number, on: boolean) => setTicked(on ? [...ticked, i] : ticked.filter((x) => x !== i));

  return (
    <section className="mt-3" aria-labelledby={`kp-proposals-${jobId}`} data-testid="kp-proposals">
      <h4 id={`kp-proposals-${jobId}`} className="text-sm font-semibold">
        {t("heading")}
      </h4>
      <p className="text-sm text-slate-600">
        {!materialExists ? t("materialGone") : open.length ? t("intro") : t("allPresent")}
      </p>
      <ul className="mt-2 space-y-2">
        {proposals.map((p) => (
          <li key={p.index} className="rounded-lg p-3 ring-1 ring-slate-200" data-testid="kp-proposal">
            <label className="flex items-start gap-2">
              <input
                type="checkbox"
                className="mt-1"
                disabled={p.present || !materialExists}
                checked={p.present || ticked.includes(p.index)}
                onChange={(e) => toggle(p.index, e.target.checked)}
              />
              <span className="min-w-0">
                <span className="font-medium [overflow-wrap:anywhere]">{p.title}</span>
                {p.present && (
                  <span className="ml-2 rounded-full bg-emerald-50 px-2 py-0.5 text-xs text-emerald-800">
                    {t("present")}
                  </span>
                )}
                <span className="block text-sm text-slate-700">{p.summary}</span>
              </span>
            </label>
            <p className="mt-1 text-xs text-slate-600">{t("keyTerms", { terms: p.keyTerms.join(", ") })}</p>
            <figure className="mt-1">
              <figcaption className="text-xs text-slate-600">{t("passage")}</figcaption>
              <blockquote className="border-l-2 border-slate-300 pl-2 text-sm whitespace-pre-wrap text-slate-700 [overflow-wrap:anywhere]">
                {p.passage}
              </blockquote>
            </figure>
          </li>
        ))}
      </ul>
      {materialExists && open.length > 0 && (
        <button
          type="button"
          disabled={!ticked.length}
          aria-disabled={accept.isPending || undefined}
          onClick={() => !accept.isPending && accept.mutate({ jobId, indexes: ticked })}
          className="mt-2 rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:cursor-not-allowed disabled:opacity-50"
        >
          {t("accept", { count: ticked.length })}
        </button>
      )}
      <div role="status" aria-live="polite">
        {accept.data && (
          <p className="mt-2 text-sm text-emerald-800">
            {t("accepted", { added: accept.data.added.length, present: accept.data.alreadyPresent })}
          </p>
        )}
      </div>
      {accept.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {accept.error.message}
        </p>
      )}
    </section>
  );
}
