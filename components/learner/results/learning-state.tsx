import { useTranslations } from "next-intl";
import { itemText, type AnyLearningAnalysis } from "@/server/job-types/learning-state-analysis/schema";
import { pct } from "../labels";

function barColor(m: number) {
  return m >= 0.75 ? "bg-emerald-500" : m >= 0.5 ? "bg-amber-400" : "bg-rose-500";
}

/** Summary, overall mastery and a bar per knowledge point (mastery, with confidence and answers). */
export function LearningStateResult({ output }: { output: AnyLearningAnalysis }) {
  const t = useTranslations("learningState");
  const kps = [...output.knowledgePoints].sort((a, b) => a.mastery - b.mastery);
  return (
    <div className="space-y-5">
      <div className="grid gap-3 sm:grid-cols-3">
        <Stat label={t("overall")} value={pct(output.overallMastery)} />
        <Stat label={t("engagement")} value={t("engagementLevel", { level: output.engagementLevel })} />
        <Stat label={t("topicsAnalysed")} value={String(output.knowledgePoints.length)} />
      </div>
      <p className="text-slate-700 [overflow-wrap:anywhere]">{output.summary}</p>
      <figure>
        <figcaption className="text-sm font-semibold">{t("perTopic")}</figcaption>
        <ul className="mt-2 space-y-2" aria-label={t("perTopicLabel")}>
          {kps.map((k) => (
            <li
              key={k.knowledgePointId}
              data-testid="mastery-row"
              data-kp={k.knowledgePointId}
              data-mastery={pct(k.mastery)}
              data-attempts={k.attempts}
            >
              <div className="flex flex-wrap justify-between gap-x-2 text-sm">
                <span className="min-w-0 [overflow-wrap:anywhere]">{k.title}</span>
                <span className="shrink-0 tabular-nums text-slate-600">
                  {pct(k.mastery)}{" "}
                  <span className="text-xs text-slate-600">
                    {t("evidence", { attempts: k.attempts, confidence: pct(k.confidence) })}
                  </span>
                </span>
              </div>
              <div
                className="mt-1 h-3 overflow-hidden rounded-full bg-slate-100"
                role="img"
                aria-label={t("barLabel", { title: k.title, mastery: pct(k.mastery) })}
              >
                <div
                  className={`h-full rounded-full ${barColor(k.mastery)}`}
                  style={{ width: `${Math.max(2, k.mastery * 100)}%`, opacity: 0.45 + 0.55 * k.confidence }}
                />
              </div>
            </li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-slate-600">{t("fainter")}</p>
      </figure>
      <div className="grid gap-4 sm:grid-cols-2">
        <List title={t("strengths")} variant="strengths" items={output.strengths} tone="text-emerald-700" />
        <List title={t("risks")} variant="risks" items={output.risks} tone="text-rose-700" />
      </div>
    </div>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-lg bg-slate-50 p-3 ring-1 ring-slate-200">
      <div className="text-xs text-slate-600">{label}</div>
      <div className="text-2xl font-semibold tabular-nums">{value}</div>
    </div>
  );
}

/** Strengths or risks: sentences (v1), or sentences naming their point (v2, `data-kp`). */
function List({
  title,
  items,
  tone,
  variant,
}: {
  title: string;
  items: (string | { knowledgePointId: string | null; text: string })[];
  tone: string;
  /** Which list: its data-testid. */
  variant: "strengths" | "risks";
}) {
  const t = useTranslations("learningState");
  return (
    <div data-testid={variant}>
      <h4 className={`text-sm font-semibold ${tone}`}>{title}</h4>
      {items.length === 0 ? (
        <p className="text-sm text-slate-600">{t("noneFound")}</p>
      ) : (
        <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-700">
          {items.map((s, i) => (
            <li key={i} data-kp={typeof s === "string" ? undefined : (s.knowledgePointId ?? undefined)}>
              {itemText(s)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
