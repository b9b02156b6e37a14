import type { inferRouterOutputs } from "@trpc/server";
import type { useTranslations } from "next-intl";
import { IN_FLIGHT_STATUSES } from "@/server/jobs/constants";
import { ANY_TARGET_TYPES, JOB_TYPES as ALL_JOB_TYPES } from "@/server/job-types/catalogue";
import type { AppRouter } from "@/server/trpc/root";

type Out = inferRouterOutputs<AppRouter>;
export type Job = Out["jobs"]["list"]["items"][number];
export type JobType = Job["jobType"];
export type JobStatus = Job["status"];
export type Targets = Out["targets"]["list"];
export type Target = { type: Job["targetType"]; id: string };

export const JOB_TYPES: JobType[] = [...ALL_JOB_TYPES];
/**
 * The analysis cards and "Run all": the types that run on any target. The others have their own
 * place (knowledge_point_extraction: "Suggest knowledge points" on a material in My materials).
 */
export const CARD_TYPES: JobType[] = [...ANY_TARGET_TYPES];

/** A status's colour; its words are the catalogue's `status.<status>`. */
export const STATUS_TONE: Record<JobStatus, string> = {
  pending: "bg-slate-100 text-slate-700 ring-slate-300",
  locked: "bg-sky-50 text-sky-800 ring-sky-300",
  running: "bg-sky-100 text-sky-900 ring-sky-400",
  expired: "bg-amber-50 text-amber-800 ring-amber-300",
  succeeded: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  failed: "bg-rose-50 text-rose-800 ring-rose-300",
  cancelled: "bg-slate-100 text-slate-600 ring-slate-300",
};

/** The pipeline stages a learner is shown by name (catalogue `stages.<stage>`). */
export const STAGES = ["prompt_builder", "model_inference", "quality_check", "format_adapter"] as const;
export type Stage = (typeof STAGES)[number];
export const isStage = (s: string | null | undefined): s is Stage => STAGES.includes(s as Stage);

export const isInFlight = (s: JobStatus) => IN_FLIGHT_STATUSES.includes(s);

/** Failure codes (docs/contract.md#the-runtime-protocol, plus the API's refusals) that have a sentence in the catalogue's `errors`. */
export const EXPLAINED_ERRORS = [
  "MODEL_TIMEOUT",
  "MODEL_RATE_LIMIT",
  "NETWORK_ERROR",
  "TEMPORARY_PROVIDER_ERROR",
  "JOB_TIMEOUT",
  "RUNTIME_SHUTDOWN",
  "INVALID_SNAPSHOT",
  "INVALID_SCHEMA",
  "INVALID_CREDENTIAL",
  "CANCELLED",
  "CONSENT_REQUIRED",
  "CREDENTIAL_REQUIRED",
  "TARGET_NOT_FOUND",
  "INVALID_PARAMS",
  "JOB_NOT_CANCELLABLE",
] as const;
type ExplainedError = (typeof EXPLAINED_ERRORS)[number];
type ErrorsT = ReturnType<typeof useTranslations<"errors">>;

/** A failure in words a learner understands, in their language (`t` is useTranslations("errors")). */
export function explainError(t: ErrorsT, code: string | null | undefined, fallback?: string | null): string {
  if (code && (EXPLAINED_ERRORS as readonly string[]).includes(code)) return t(code as ExplainedError);
  return fallback ? t("withDetail", { detail: fallback }) : t("generic");
}

/** The app's error code from a tRPC client error (the server's formatter puts it in data.appCode). */
export function appCodeOf(error: unknown): string | null {
  const data = (error as { data?: { appCode?: string; code?: string } } | null)?.data;
  return data?.appCode ?? data?.code ?? null;
}

type TargetsT = ReturnType<typeof useTranslations<"targets">>;

/** The target's own title (a material's or topic's, as the learner wrote it); `t` is useTranslations("targets"). */
export function targetTitle(t: TargetsT, targets: Targets | undefined, target: Target): string {
  if (!targets) return "…";
  if (target.type === "user") return t("everythingYou");
  if (target.type === "material") return targets.materials.find((m) => m.id === target.id)?.title ?? t("aMaterial");
  const all = [...targets.materials.flatMap((m) => m.knowledgePoints), ...targets.looseKnowledgePoints];
  return all.find((k) => k.id === target.id)?.title ?? t("aTopic");
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;
