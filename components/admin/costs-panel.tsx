"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { useLiveOptions } from "./live";
import { ErrorBox, Loading, Panel } from "./ui";
import { Legend } from "./charts";

type Sums = {
  promptTokens: number;
  completionTokens: number;
  cacheHitTokens: number;
  tokens: number;
  attempts: number;
  cost: number;
  cacheHitShare: number;
  cacheSaved: number;
};
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

const tokens = (n: number) => n.toLocaleString();
/** Days are UTC days (the budget's and the query's), so they are labelled in UTC, not the viewer's zone. */
const utcDay = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { timeZone: "UTC", month: "short", day: "numeric" });
const KEY_MODES: Record<string, string> = { platform_key: "Platform key", user_deepseek_key: "Learner's own key" };

/** The overview's model usage panel: tokens and estimated cost over the last 14 UTC days. */
export function CostsPanel() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.monitor.costs.queryOptions(), ...useLiveOptions() });
  const c = q.data;
  if (!c)
    return (
      <Panel title="Model usage and cost">
        {q.isLoading ? <Loading /> : <ErrorBox error={q.error} retry={() => void q.refetch()} />}
      </Panel>
    );
  const money = (n: number) =>
    n.toLocaleString(undefined, {
      style: "currency",
      currency: c.currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: n && n < 1 ? 4 : 2,
    });
  return (
    <section aria-label="Model usage and cost" data-testid="costs-panel" className="space-y-3">
      <Panel
        title="Model usage and cost (last 14 days, UTC)"
        actions={
          <Legend
            items={[
              ["prompt", "bg-sky-500"],
              ["completion", "bg-violet-500"],
            ]}
          />
        }
      >
        <p className="mb-2 text-sm text-slate-700" data-testid="costs-total">
          <strong className="font-semibold">{tokens(c.total.tokens)}</strong> tokens in{" "}
          {c.total.attempts.toLocaleString()} attempts · estimated{" "}
          <strong className="font-semibold">{money(c.total.cost)}</strong>
          <span className="ml-2 text-xs text-slate-600">
            at {money(c.prices.promptPerMTok)} / {money(c.prices.completionPerMTok)} per million prompt / completion
            tokens ({money(c.prices.promptCacheHitPerMTok)} for prompt tokens served from the provider&apos;s cache)
          </span>
        </p>
        <p className="mb-2 text-sm text-slate-700" data-testid="costs-cache">
          {c.total.tokens === 0 ? (
            // No model was called (offline analyzer only): a share of nothing is no 0 %.
            <>Prompt cache: no provider usage in this window.</>
          ) : (
            <>
              Prompt cache: <strong className="font-semibold">{pct(c.total.cacheHitShare)}</strong> of prompt tokens
              served from the provider&apos;s cache ({tokens(c.total.cacheHitTokens)}) · saved{" "}
              <strong className="font-semibold">{money(c.total.cacheSaved)}</strong>
            </>
          )}
        </p>
        <DayChart days={c.byDay} money={money} />
      </Panel>
      <div className="grid gap-3 md:grid-cols-3">
        <Panel title="By job type">
          <SumsTable
            testId="costs-by-type"
            rows={c.byType.map((r) => ({ key: r.jobType, label: r.jobType.replaceAll("_", " "), ...r }))}
            money={money}
          />
        </Panel>
        <Panel title="By key">
          <SumsTable
            testId="costs-by-key"
            rows={c.byKeyMode.map((r) => ({ key: r.apiKeyMode, label: KEY_MODES[r.apiKeyMode] ?? r.apiKeyMode, ...r }))}
            money={money}
          />
        </Panel>
        <Panel title="Top learners (last 7 days)">
          <SumsTable
            testId="costs-top-learners"
            rows={c.topLearners.map((r) => ({ key: r.userId, label: r.email ?? r.userId, ...r }))}
            money={money}
          />
        </Panel>
      </div>
    </section>
  );
}

function SumsTable({
  rows,
  money,
  testId,
}: {
  rows: (Sums & { key: string; label: string })[];
  money: (n: number) => string;
  testId: string;
}) {
  if (!rows.length)
    return (
      <p className="text-sm text-slate-600" data-testid={testId}>
        No model usage yet.
      </p>
    );
  return (
    <table className="w-full text-sm" data-testid={testId}>
      <thead>
        <tr className="text-left text-xs text-slate-600">
          <th className="font-normal">Who / what</th>
          <th className="text-right font-normal">Tokens</th>
          <th className="text-right font-normal">Est. cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} className="border-t border-slate-100">
            <td
              className="max-w-[12rem] truncate py-1"
              title={`${r.label}: ${tokens(r.promptTokens)} prompt + ${tokens(r.completionTokens)} completion tokens in ${r.attempts} attempts`}
            >
              {r.label}
            </td>
            <td className="text-right font-mono tabular-nums">{tokens(r.tokens)}</td>
            <td className="text-right font-mono tabular-nums">{money(r.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const W = 640;
const H = 150;
const PAD = { l: 56, r: 8, t: 8, b: 20 };

/** Stacked bars per UTC day: prompt tokens below, completion above; cost in each bar's tooltip. */
function DayChart({ days, money }: { days: (Sums & { day: string })[]; money: (n: number) => string }) {
  const max = Math.max(1, ...days.map((d) => d.tokens));
  const bw = (W - PAD.l - PAD.r) / Math.max(1, days.length);
  const y = (v: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - v / max);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      className="h-40 w-full"
      role="img"
      aria-label="Tokens per day, prompt and completion"
    >
      <text x={PAD.l - 4} y={PAD.t + 8} textAnchor="end" className="fill-slate-500 text-[10px]">
        {tokens(max)}
      </text>
      <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end" className="fill-slate-500 text-[10px]">
        0
      </text>
      <line x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} className="stroke-slate-300" />
      {days.map((d, i) => {
        const x = PAD.l + i * bw + 1;
        return (
          <g key={d.day} data-testid="costs-day">
            <title>{`${utcDay(d.day)}: ${tokens(d.tokens)} tokens (${tokens(d.promptTokens)} prompt, ${tokens(d.completionTokens)} completion), about ${money(d.cost)}`}</title>
            <rect
              x={x}
              width={Math.max(1, bw - 2)}
              y={y(d.promptTokens)}
              height={y(0) - y(d.promptTokens)}
              className="fill-sky-500"
            />
            <rect
              x={x}
              width={Math.max(1, bw - 2)}
              y={y(d.tokens)}
              height={y(d.promptTokens) - y(d.tokens)}
              className="fill-violet-500"
            />
            {i % 2 === 0 && (
              <text x={x} y={H - 6} className="fill-slate-500 text-[10px]">
                {utcDay(d.day)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
