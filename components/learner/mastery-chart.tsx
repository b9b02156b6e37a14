"use client";

import { useQuery } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { formatAxis, Time } from "@/components/time";
import { useTRPC } from "@/components/trpc/client";
import { pct } from "./labels";

/**
 * Mastery per topic across the learner's past learning-state analyses: one line per topic on a
 * shared time axis, so progress over weeks is seen rather than read. A table with the same numbers
 * is one click away (and is what screen readers get). A point of an analysis stored degraded is
 * drawn hollow and marked unverified (in its tooltip, its topic's label and the table), with a note
 * saying how many analyses were.
 */
const W = 640;
const H = 220;
const PAD = { l: 36, r: 12, t: 10, b: 24 };
// Eight colours distinguishable on white (each ≥ 3:1 against it, as lines need).
const COLORS = ["#4338ca", "#b91c1c", "#047857", "#b45309", "#7c3aed", "#0e7490", "#be185d", "#4d7c0f"];

export function MasteryChart() {
  const t = useTranslations("mastery");
  const tCommon = useTranslations("common");
  const trpc = useTRPC();
  const q = useQuery(trpc.progress.mastery.queryOptions());
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const data = q.data;
  return (
    <section
      aria-labelledby="progress-heading"
      className="mt-6 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200"
      data-testid="mastery-history"
    >
      <h2 id="progress-heading" className="text-lg font-semibold">
        {t("heading")}
      </h2>
      {q.isLoading && <p className="mt-2 text-sm text-slate-600">{tCommon("loading")}</p>}
      {q.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("loadError", { message: q.error.message })}
        </p>
      )}
      {data && data.analyses === 0 && <p className="mt-2 text-sm text-slate-600">{t("empty")}</p>}
      {data && data.unverified > 0 && (
        <p className="mt-2 text-sm text-amber-900" data-testid="mastery-unverified">
          {t("unverified", { count: data.unverified })}
        </p>
      )}
      {data && data.analyses > 0 && (
        <Chart
          data={data}
          hidden={hidden}
          toggle={(id) => setHidden((h) => (h.has(id) ? new Set([...h].filter((x) => x !== id)) : new Set([...h, id])))}
        />
      )}
    </section>
  );
}

type Point = { at: string; mastery: number; degraded: boolean };
type Data = {
  analyses: number;
  overall: Point[];
  topics: { knowledgePointId: string; title: string; points: Point[] }[];
};

function Chart({ data, hidden, toggle }: { data: Data; hidden: Set<string>; toggle: (id: string) => void }) {
  const t = useTranslations("mastery");
  const locale = useLocale();
  const times = data.overall.map((p) => new Date(p.at).getTime());
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const spanDays = (t1 - t0) / 86_400_000;
  const x = (at: string) =>
    PAD.l + (t1 === t0 ? (W - PAD.l - PAD.r) / 2 : ((new Date(at).getTime() - t0) / (t1 - t0)) * (W - PAD.l - PAD.r));
  const y = (m: number) => PAD.t + (1 - m) * (H - PAD.t - PAD.b);
  const colorOf = (i: number) => COLORS[i % COLORS.length]!;
  const unverified = t("unverifiedMark");
  return (
    <>
      <p className="mt-1 text-sm text-slate-600">
        {t.rich("summary", { count: data.analyses, time: () => <Time value={data.overall[0]!.at} /> })}
      </p>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="mt-3 w-full"
        role="img"
        aria-label={t("chartLabel", { count: data.analyses })}
      >
        {[0, 0.25, 0.5, 0.75, 1].map((m) => (
          <g key={m}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(m)} y2={y(m)} stroke="#e2e8f0" />
            <text x={PAD.l - 6} y={y(m) + 4} textAnchor="end" fontSize="10" fill="#475569">
              {pct(m)}
            </text>
          </g>
        ))}
        {[...new Set(data.overall.map((p) => p.at))]
          .filter((_, i, a) => a.length <= 6 || i % Math.ceil(a.length / 6) === 0)
          .map((at, i, shown) => (
            // The first and last labels hug the plot's edges so they are never cut off.
            <text
              key={at}
              x={x(at)}
              y={H - 6}
              textAnchor={
                shown.length > 1 && i === 0 ? "start" : shown.length > 1 && i === shown.length - 1 ? "end" : "middle"
              }
              fontSize="10"
              fill="#475569"
            >
              {formatAxis(at, spanDays >= 2, locale)}
            </text>
          ))}
        {data.topics.map((t, i) =>
          hidden.has(t.knowledgePointId) ? null : (
            <g key={t.knowledgePointId} data-testid="mastery-line" data-topic={t.title} data-points={t.points.length}>
              <polyline
                fill="none"
                stroke={colorOf(i)}
                strokeWidth="2"
                points={t.points.map((p) => `${x(p.at)},${y(p.mastery)}`).join(" ")}
              />
              {t.points.map((p, k) => (
                <circle
                  key={k}
                  cx={x(p.at)}
                  cy={y(p.mastery)}
                  r="3"
                  fill={p.degraded ? "#fff" : colorOf(i)}
                  stroke={colorOf(i)}
                  data-degraded={p.degraded || undefined}
                >
                  <title>{`${t.title}: ${pct(p.mastery)}${p.degraded ? ` (${unverified})` : ""}`}</title>
                </circle>
              ))}
            </g>
          ),
        )}
      </svg>
      <ul className="mt-2 flex flex-wrap gap-2" aria-label={t("topicsLabel")}>
        {data.topics.map((t, i) => {
          const last = t.points.at(-1)!;
          const first = t.points[0]!;
          const delta = last.mastery - first.mastery;
          return (
            <li key={t.knowledgePointId}>
              <button
                type="button"
                aria-pressed={!hidden.has(t.knowledgePointId)}
                data-testid="mastery-topic"
                data-kp={t.knowledgePointId}
                data-mastery={pct(last.mastery)}
                data-degraded={last.degraded || undefined}
                onClick={() => toggle(t.knowledgePointId)}
                className={`inline-flex max-w-full items-center gap-1.5 rounded-full text-left [overflow-wrap:anywhere] px-2.5 py-1 text-xs ring-1 ring-slate-300 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-600 ${hidden.has(t.knowledgePointId) ? "text-slate-600" : "text-slate-900"}`}
              >
                <span
                  className="inline-block h-2.5 w-2.5 rounded-full"
                  style={{ background: hidden.has(t.knowledgePointId) ? "#cbd5e1" : colorOf(i) }}
                  aria-hidden
                />
                {t.title} · {pct(last.mastery)}
                {last.degraded && <span className="text-amber-900">({unverified})</span>}
                {t.points.length > 1 && (
                  <span className={delta >= 0 ? "text-emerald-800" : "text-rose-800"}>
                    {delta >= 0 ? "▲" : "▼"}
                    {pct(Math.abs(delta))}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-slate-700">{t("showTable")}</summary>
        {/* Scrolls sideways on a phone rather than squeezing long topic names into a column of single characters. */}
        <div
          tabIndex={0}
          role="region"
          aria-label={t("tableLabel")}
          className="mt-2 overflow-x-auto focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          <table className="w-full text-left text-xs">
            <thead>
              <tr>
                <th scope="col" className="py-1 pr-2">
                  {t("topic")}
                </th>
                {data.overall.map((p, k) => (
                  <th key={k} scope="col" className="pr-2 font-medium whitespace-nowrap">
                    <Time value={p.at} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.topics.map((t) => (
                <tr key={t.knowledgePointId} className="border-t border-slate-100">
                  <th scope="row" className="min-w-32 py-1 pr-2 font-normal [overflow-wrap:anywhere]">
                    {t.title}
                  </th>
                  {data.overall.map((o, k) => (
                    <td key={k} className="pr-2 tabular-nums">
                      {(() => {
                        const p = t.points.find((x) => x.at === o.at);
                        return p ? `${pct(p.mastery)}${p.degraded ? ` (${unverified})` : ""}` : "—";
                      })()}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
