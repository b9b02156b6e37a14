"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ComponentProps } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Legend, LatencyChart, ThroughputChart } from "./charts";
import { CostsPanel } from "./costs-panel";
import { useLiveOptions } from "./live";
import { ErrorBox, fmtSeconds, Loading, Panel, StatusBadge } from "./ui";
import { Time } from "@/components/time";
import { SHOWN_STATUSES } from "@/server/jobs/constants";

const WINDOWS = ["1h", "24h", "7d"] as const;
const STATES = SHOWN_STATUSES;

export function Overview() {
  const trpc = useTRPC();
  const [window, setWindow] = useState<(typeof WINDOWS)[number]>("1h");
  const q = useQuery({ ...trpc.admin.monitor.overview.queryOptions({ window }), ...useLiveOptions() });
  const o = q.data;
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between">
        <h1 className="text-xl font-semibold">Overview</h1>
        <div
          role="radiogroup"
          aria-label="Time window"
          className="inline-flex rounded-md border border-slate-300 bg-white p-0.5"
        >
          {WINDOWS.map((w) => (
            <button
              key={w}
              type="button"
              role="radio"
              aria-checked={window === w}
              onClick={() => setWindow(w)}
              className={`rounded px-3 py-1 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${window === w ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {w}
            </button>
          ))}
        </div>
      </div>
      <ErrorBox error={q.error} retry={() => void q.refetch()} />
      {!o ? (
        q.isLoading && <Loading />
      ) : (
        <>
          {o.alert && (
            <div
              role="alert"
              className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900"
            >
              <strong className="font-semibold">No Runtime is working the queue.</strong> {o.alert.message}.{" "}
              <Link href="/admin/runtimes" className="underline">
                See Runtimes
              </Link>
            </div>
          )}
          <div className="grid grid-cols-2 gap-3 md:grid-cols-6">
            <Stat label="Queue depth" value={o.queueDepth.toLocaleString()} hint="pending and visible" />
            <Stat label="Oldest pending" value={o.queueDepth ? fmtSeconds(o.oldestPendingAgeSeconds) : "—"} />
            <Stat
              label={`Throughput (${window})`}
              value={`${o.totals.perMinute.toFixed(2)}/min`}
              hint={`${o.totals.succeeded} ok · ${o.totals.failed} failed`}
            />
            <Stat
              label="Failure rate"
              value={`${(o.totals.failureRate * 100).toFixed(1)}%`}
              tone={o.totals.failureRate > 0.2 ? "bad" : undefined}
            />
            <Stat
              label="Wait p50 / p95"
              value={`${fmtSeconds(o.totals.waitP50)} / ${fmtSeconds(o.totals.waitP95)}`}
              hint="created → first lock"
            />
            <Stat
              label="Run p50 / p95"
              value={`${fmtSeconds(o.totals.runP50)} / ${fmtSeconds(o.totals.runP95)}`}
              hint="locked → finished"
            />
          </div>
          <div className="grid gap-3 md:grid-cols-2">
            <Panel title="Jobs by state">
              <ul className="grid grid-cols-3 gap-2 text-sm">
                {STATES.map((s) => (
                  <li key={s}>
                    <Link
                      href={`/admin/jobs?status=${s}`}
                      className="flex items-center justify-between rounded border border-slate-100 px-2 py-1 hover:bg-slate-50"
                    >
                      <StatusBadge status={s} />
                      <span className="font-mono tabular-nums">
                        {(o.byState.find((b) => b.status === s)?.n ?? 0).toLocaleString()}
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            </Panel>
            <Panel title="Jobs by type">
              <ul className="space-y-1 text-sm">
                {o.byType.length === 0 && <li className="text-slate-600">No jobs yet.</li>}
                {o.byType.map((t) => (
                  <li key={t.jobType}>
                    <Link
                      href={`/admin/jobs?type=${t.jobType}`}
                      className="flex justify-between rounded px-2 py-0.5 hover:bg-slate-50"
                    >
                      <span>{t.jobType}</span>
                      <span className="font-mono tabular-nums">{t.n.toLocaleString()}</span>
                    </Link>
                  </li>
                ))}
              </ul>
            </Panel>
          </div>
          <Panel
            title={`Finished per ${o.bucketMinutes >= 60 ? `${o.bucketMinutes / 60} h` : `${o.bucketMinutes} min`}`}
            actions={
              <Legend
                items={[
                  ["succeeded", "bg-emerald-500"],
                  ["failed", "bg-rose-500"],
                ]}
              />
            }
          >
            <ThroughputChart
              points={o.buckets}
              bucketMinutes={o.bucketMinutes}
              label="Succeeded and failed jobs per time bucket"
            />
          </Panel>
          <div className="grid gap-3 md:grid-cols-2">
            <LatencyPanel
              title="Wait time (created → first lock)"
              name="Wait time"
              p50="waitP50"
              p95="waitP95"
              points={o.buckets}
              bucketMinutes={o.bucketMinutes}
            />
            <LatencyPanel
              title="Run time (locked → finished)"
              name="Run time"
              p50="runP50"
              p95="runP95"
              points={o.buckets}
              bucketMinutes={o.bucketMinutes}
            />
          </div>
          <CostsPanel />
          <p className="text-xs text-slate-600">
            Last Runtime seen {o.lastRuntimeSeenAt ? <Time value={o.lastRuntimeSeenAt} relative /> : "never"} · as of{" "}
            <Time value={o.at} />
          </p>
        </>
      )}
    </div>
  );
}

/** A latency chart (p50 and p95 per time bucket) in its panel, with the legend. */
function LatencyPanel({
  title,
  name,
  ...chart
}: { title: string; name: string } & Omit<ComponentProps<typeof LatencyChart>, "label">) {
  return (
    <Panel
      title={title}
      actions={
        <Legend
          items={[
            ["p50", "bg-indigo-600"],
            ["p95", "bg-amber-500"],
          ]}
        />
      }
    >
      <LatencyChart {...chart} label={`${name} p50 and p95`} />
    </Panel>
  );
}

function Stat({ label, value, hint, tone }: { label: string; value: string; hint?: string; tone?: "bad" }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 shadow-sm">
      <div className="text-xs text-slate-600">{label}</div>
      <div
        className={`mt-0.5 text-lg font-semibold tabular-nums ${tone === "bad" ? "text-rose-700" : "text-slate-900"}`}
      >
        {value}
      </div>
      {hint && <div className="text-xs text-slate-600">{hint}</div>}
    </div>
  );
}
