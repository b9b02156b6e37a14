import type { inferRouterOutputs } from "@trpc/server";
import { IN_FLIGHT_STATUSES } from "@/server/jobs/constants";
import { JOB_TYPE_LABELS, JOB_TYPES as ALL_JOB_TYPES } from "@/server/job-types";
import type { AppRouter } from "@/server/trpc/root";

type Out = inferRouterOutputs<AppRouter>;
export type Job = Out["jobs"]["list"]["items"][number];
export type JobType = Job["jobType"];
export type JobStatus = Job["status"];
export type Targets = Out["targets"]["list"];
export type Target = { type: Job["targetType"]; id: string };

export const JOB_TYPES: JobType[] = [...ALL_JOB_TYPES];

/** Each type's title and blurb, from its module in server/job-types. */
export const TYPE_INFO: Record<JobType, { title: string; blurb: string }> = JOB_TYPE_LABELS;

export const STATUS_INFO: Record<JobStatus, { label: string; tone: string }> = {
  pending: { label: "Waiting", tone: "bg-slate-100 text-slate-700 ring-slate-300" },
  locked: { label: "Starting", tone: "bg-sky-50 text-sky-800 ring-sky-300" },
  running: { label: "Running", tone: "bg-sky-100 text-sky-900 ring-sky-400" },
  expired: { label: "Retrying", tone: "bg-amber-50 text-amber-800 ring-amber-300" },
  succeeded: { label: "Ready", tone: "bg-emerald-50 text-emerald-800 ring-emerald-300" },
  failed: { label: "Failed", tone: "bg-rose-50 text-rose-800 ring-rose-300" },
  cancelled: { label: "Cancelled", tone: "bg-slate-100 text-slate-600 ring-slate-300" },
};

export const STAGE_LABELS: Record<string, string> = {
  prompt_builder: "Reading your data",
  model_inference: "Thinking",
  quality_check: "Checking the answer",
  format_adapter: "Finishing",
};

export const isInFlight = (s: JobStatus) => IN_FLIGHT_STATUSES.includes(s);

/** Failure codes (SPEC §4, plus the API's refusals) in words a learner understands. */
const ERROR_SENTENCES: Record<string, string> = {
  MODEL_TIMEOUT: "The AI took too long to answer, several times. Try again in a little while.",
  MODEL_RATE_LIMIT: "The AI service was busy and asked us to slow down. Try again in a few minutes.",
  NETWORK_ERROR: "We could not reach the AI service. Try again in a little while.",
  TEMPORARY_PROVIDER_ERROR: "The AI service had a temporary problem. Try again in a little while.",
  JOB_TIMEOUT:
    "The analysis ran out of time, even after retries. Try again; if it keeps happening, try a smaller target.",
  RUNTIME_SHUTDOWN: "The worker running it was restarted. Try again.",
  INVALID_SNAPSHOT:
    "Your learning data could not be read for this analysis. Add some material or answers and try again.",
  INVALID_SCHEMA: "The AI's answer did not pass our checks, so we did not show it. Try again.",
  INVALID_CREDENTIAL: "Your own DeepSeek key was refused. Check it in “AI settings”, or switch to the platform key.",
  CANCELLED: "You (or turning AI off) stopped this analysis.",
  CONSENT_REQUIRED: "AI analysis is turned off. Turn it on in “AI settings” to start one.",
  CREDENTIAL_REQUIRED: "You chose your own DeepSeek key but have not saved one. Save it or switch to the platform key.",
  TARGET_NOT_FOUND: "That material or topic no longer exists.",
  INVALID_PARAMS: "Some of the options are not valid; check the numbers and choices.",
  JOB_NOT_CANCELLABLE: "It has already finished, so there is nothing to cancel.",
};

export function explainError(code: string | null | undefined, fallback?: string | null): string {
  if (code && ERROR_SENTENCES[code]) return ERROR_SENTENCES[code];
  return fallback ? `Something went wrong: ${fallback}` : "Something went wrong. Try again.";
}

/** The app's error code from a tRPC client error (the server's formatter puts it in data.appCode). */
export function appCodeOf(error: unknown): string | null {
  const data = (error as { data?: { appCode?: string; code?: string } } | null)?.data;
  return data?.appCode ?? data?.code ?? null;
}

export function targetTitle(targets: Targets | undefined, t: Target): string {
  if (!targets) return "…";
  if (t.type === "user") return "Everything (you)";
  if (t.type === "material") return targets.materials.find((m) => m.id === t.id)?.title ?? "A material";
  const all = [...targets.materials.flatMap((m) => m.knowledgePoints), ...targets.looseKnowledgePoints];
  return all.find((k) => k.id === t.id)?.title ?? "A topic";
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;
