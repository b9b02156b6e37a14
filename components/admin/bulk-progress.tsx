"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { buttonClass, ErrorBox, Panel } from "./ui";

/** Progress of a running bulk action is polled: it moves every batch, independent of job events. */
const PROGRESS_POLL_MS = 1_000;

/** A bulk run as bulkStatus answers it (dates as ISO strings). */
type Run = inferRouterOutputs<AppRouter>["admin"]["actions"]["bulkStatus"];

const VERB = { rerun: { run: "Re-run", done: "re-run" }, cancel: { run: "Cancel", done: "cancelled" } } as const;

/**
 * One bulk run: a progress bar while it runs, its final count when it ends, and its controls:
 * pause (it stops at the next batch boundary), resume, one batch by hand while paused, and stop.
 */
export function BulkProgress({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const q = useQuery({
    ...trpc.admin.actions.bulkStatus.queryOptions({ id: runId }),
    refetchInterval: (query) =>
      query.state.data?.status === "running" && (!query.state.data.paused || query.state.data.cancelRequested)
        ? PROGRESS_POLL_MS
        : false,
  });
  const settle = {
    onSuccess: (run: Run) => {
      queryClient.setQueryData(trpc.admin.actions.bulkStatus.queryKey({ id: runId }), run);
      void queryClient.invalidateQueries(trpc.admin.actions.pathFilter());
    },
  };
  const stop = useMutation(trpc.admin.actions.bulkCancel.mutationOptions(settle));
  const pause = useMutation(trpc.admin.actions.bulkPause.mutationOptions(settle));
  const step = useMutation(trpc.admin.actions.bulkStep.mutationOptions(settle));
  if (!q.data) return <ErrorBox error={q.error} />;
  const run = q.data;
  const busy = stop.isPending || pause.isPending || step.isPending;
  return (
    <div className="space-y-2">
      <RunLine run={run} />
      {run.status === "running" && (
        <div className="flex flex-wrap gap-2">
          {!run.cancelRequested &&
            (run.paused ? (
              <>
                <button
                  type="button"
                  className={buttonClass("primary")}
                  disabled={busy}
                  onClick={() => pause.mutate({ id: runId, paused: false })}
                >
                  Resume
                </button>
                <button
                  type="button"
                  className={buttonClass()}
                  disabled={busy}
                  onClick={() => step.mutate({ id: runId })}
                >
                  {step.isPending ? "Running one batch…" : "Run one batch"}
                </button>
              </>
            ) : (
              <button
                type="button"
                className={buttonClass()}
                disabled={busy}
                onClick={() => pause.mutate({ id: runId, paused: true })}
              >
                {pause.isPending ? "Pausing…" : "Pause"}
              </button>
            ))}
          <button
            type="button"
            className={buttonClass("danger")}
            disabled={run.cancelRequested || busy}
            onClick={() => stop.mutate({ id: runId })}
          >
            {run.cancelRequested ? "Stopping…" : "Stop this bulk action"}
          </button>
        </div>
      )}
      <ErrorBox error={stop.error ?? pause.error ?? step.error} />
    </div>
  );
}

function RunLine({ run }: { run: Run }) {
  const pct = run.total ? Math.round((run.processed / run.total) * 100) : 100;
  const verb = VERB[run.action];
  return (
    <div
      className="space-y-1 text-sm"
      data-testid="bulk-progress"
      data-status={run.status === "running" && run.paused ? "paused" : run.status}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">
          {verb.run} · {run.total} job{run.total === 1 ? "" : "s"}
        </span>
        <span
          className={`rounded px-1.5 py-0.5 text-xs font-medium ${run.status !== "running" ? (run.status === "done" ? "bg-emerald-100 text-emerald-900" : "bg-slate-200 text-slate-800") : run.paused ? "bg-amber-100 text-amber-900" : "bg-indigo-100 text-indigo-900"}`}
        >
          {run.status === "running" && run.paused ? "paused" : run.status}
        </span>
        <span className="text-xs text-slate-600">
          started <Time value={run.createdAt} relative />
        </span>
      </div>
      <div
        className="h-2 w-full overflow-hidden rounded bg-slate-200"
        role="progressbar"
        aria-label={`${verb.run} progress`}
        aria-valuenow={run.processed}
        aria-valuemin={0}
        aria-valuemax={run.total}
      >
        <div className="h-full bg-indigo-600 transition-all" style={{ width: `${pct}%` }} />
      </div>
      <p role="status" className="tabular-nums text-slate-700">
        {run.status === "running"
          ? `${run.processed} of ${run.total} handled · ${run.affected} ${verb.done}${run.paused ? " · paused" : ""}`
          : `${run.status === "cancelled" ? "Stopped" : "Finished"}: ${run.affected} of ${run.total} job${run.total === 1 ? "" : "s"} ${verb.done}${run.errors ? `, ${run.errors} error(s)` : ""}.`}
        {run.message && run.status !== "running" ? ` ${run.message}.` : ""}
      </p>
    </div>
  );
}

/** The recent bulk runs on the explorer page: running ones show live progress and can be stopped. */
export function BulkRunsPanel() {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.admin.actions.bulkRuns.queryOptions({ limit: 5 }),
    refetchInterval: (query) =>
      query.state.data?.items.some((r) => r.status === "running") ? PROGRESS_POLL_MS : 15_000,
  });
  const items = q.data?.items ?? [];
  if (!items.length) return null;
  return (
    <Panel title="Bulk actions">
      <ul className="space-y-3" aria-label="Bulk actions">
        {items.map((r) => (
          <li key={r.id}>{r.status === "running" ? <BulkProgress runId={r.id} /> : <RunLine run={r} />}</li>
        ))}
      </ul>
    </Panel>
  );
}
