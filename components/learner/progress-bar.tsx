import { useTranslations } from "next-intl";
import { isStage, type Job } from "./labels";

/** Stage and percentage of a job in flight; a polite live region so screen readers hear it move. */
export function JobProgress({
  job,
  label,
}: {
  job: Pick<Job, "status" | "stage" | "progress" | "cancelRequested">;
  label: string;
}) {
  const t = useTranslations("stages");
  const stage = job.cancelRequested
    ? t("stopping")
    : job.status === "pending"
      ? t("queued")
      : job.status === "locked"
        ? t("starting")
        : job.status === "expired"
          ? t("retrying")
          : isStage(job.stage)
            ? t(job.stage)
            : t("working");
  return (
    <div className="mt-2">
      <div className="flex justify-between text-xs text-slate-600" aria-live="polite">
        <span data-testid="job-stage">{stage}</span>
        <span data-testid="job-progress">{job.progress}%</span>
      </div>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={job.progress}
        aria-valuetext={t("valueText", { stage, progress: job.progress })}
        className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
      >
        <div
          className="h-full rounded-full bg-indigo-500 transition-all duration-500"
          style={{ width: `${Math.max(3, job.progress)}%` }}
        />
      </div>
    </div>
  );
}
