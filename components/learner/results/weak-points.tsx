import { useTranslations } from "next-intl";
import type { WeakPoints } from "@/server/jobs/schemas";

const RANK = { high: 0, medium: 1, low: 2 } as const;
const TONE = {
  high: "bg-rose-100 text-rose-800",
  medium: "bg-amber-100 text-amber-800",
  low: "bg-slate-100 text-slate-700",
} as const;

/** Weak points, most severe first, with their evidence and what to review. */
export function WeakPointsResult({ output }: { output: WeakPoints }) {
  const t = useTranslations("weakPoints");
  const items = [...output.weakPoints].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  if (!items.length) return <p className="text-slate-700">{t("none")}</p>;
  return (
    <ol className="space-y-3">
      {items.map((w, i) => (
        <li
          key={`${w.knowledgePointId}-${i}`}
          className="rounded-lg p-3 ring-1 ring-slate-200"
          data-testid="weak-point"
        >
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h4 className="min-w-0 font-semibold [overflow-wrap:anywhere]">
              {i + 1}. {w.title}
            </h4>
            <span className={`shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${TONE[w.severity]}`}>
              {t("severity", { severity: w.severity })}
            </span>
          </div>
          <ul className="mt-2 list-disc space-y-0.5 pl-5 text-sm text-slate-600" aria-label={t("evidenceLabel")}>
            {w.evidence.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
          <p className="mt-2 text-sm">
            <span className="font-medium">{t("review")}</span>
            {w.suggestedReview}
          </p>
        </li>
      ))}
    </ol>
  );
}
