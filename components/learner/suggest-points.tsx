"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useTRPC } from "@/components/trpc/client";
import { isTerminal } from "@/server/jobs/constants";
import { appCodeOf, explainError } from "./labels";
import { JobProgress } from "./progress-bar";
import { KnowledgePointProposals } from "./results/knowledge-points";
import { refreshAfterWrite } from "@/components/trpc/refresh";

const TYPE = "knowledge_point_extraction" as const;

/**
 * "Suggest knowledge points" on a material: starts a knowledge_point_extraction job on it, shows
 * its progress, and, once it is done, its proposals to review and accept. The latest such job of
 * the material is the one shown (a learner can suggest again after editing the text).
 */
export function SuggestPoints({ materialId, materialTitle }: { materialId: string; materialTitle: string }) {
  const t = useTranslations("kpProposals");
  const tErrors = useTranslations("errors");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const latest = useQuery({
    ...trpc.materials.latestSuggestion.queryOptions({ materialId }),
    // Until the job ends (the job feed moves the job lists; this card asks again).
    refetchInterval: (q) => (q.state.data && !isTerminal(q.state.data.status) ? 1000 : false),
  });
  const start = useMutation(
    trpc.analyses.trigger.mutationOptions({
      onSuccess: () => refreshAfterWrite(queryClient, trpc.materials.latestSuggestion.queryFilter({ materialId })),
    }),
  );
  const job = latest.data;
  const running = !!job && !isTerminal(job.status);

  return (
    <div className="mt-3" data-testid="suggest-points">
      <button
        type="button"
        disabled={running}
        aria-disabled={start.isPending || undefined}
        onClick={() =>
          !start.isPending && start.mutate({ target: { type: "material", id: materialId }, jobTypes: [TYPE] })
        }
        className="rounded-lg px-3 py-1 text-sm ring-1 ring-indigo-300 hover:bg-indigo-50 disabled:cursor-not-allowed disabled:opacity-50"
      >
        {job?.status === "succeeded" ? t("suggestAgain") : t("suggest")}
        <span className="sr-only"> {materialTitle}</span>
      </button>
      {start.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {explainError(tErrors, appCodeOf(start.error), start.error.message)}
        </p>
      )}
      {running && (
        <>
          <p className="mt-2 text-sm text-slate-600">{t("suggesting")}</p>
          <JobProgress job={job} label={t("progressLabel", { title: materialTitle })} />
        </>
      )}
      {(job?.status === "failed" || job?.status === "cancelled") && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("failed", { reason: explainError(tErrors, job.errorCode, job.errorMessage) })}
        </p>
      )}
      {job?.status === "succeeded" && <KnowledgePointProposals jobId={job.id} />}
    </div>
  );
}
