"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { BulkScope } from "@/server/admin/filter-schema";
import { BulkProgress } from "./bulk-progress";
import { buttonClass, ErrorBox, Loading, StatusBadge } from "./ui";
import { refreshAfterWrite } from "@/components/trpc/refresh";

export type BulkRequest = { action: "rerun" | "cancel"; scope: BulkScope; label: string };

/**
 * Confirmation for a bulk action: the server's preview says exactly how many jobs the action
 * will change (and of how many the scope matches); the confirm sends that count back, and the
 * server refuses if the scope changed in between.
 */
export function BulkDialog({ request, onClose }: { request: BulkRequest; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = useRef<HTMLDialogElement>(null);
  const [startPaused, setStartPaused] = useState(false);
  const preview = useQuery({
    ...trpc.admin.actions.bulkPreview.queryOptions({ action: request.action, scope: request.scope }),
    staleTime: 0,
    refetchInterval: false,
  });
  const run = useMutation(
    trpc.admin.actions.bulkRun.mutationOptions({
      onSuccess: () => void refreshAfterWrite(queryClient, trpc.admin.pathFilter()),
      onError: () => void preview.refetch(),
    }),
  );
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const verb = request.action === "rerun" ? "Re-run" : "Cancel";
  const p = preview.data;
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="bulk-title"
      className="m-auto w-full max-w-lg rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="space-y-3 p-5">
        <h2 id="bulk-title" className="text-lg font-semibold">
          {verb} jobs
        </h2>
        <p className="text-sm text-slate-600">Scope: {request.label}</p>
        {preview.isLoading && <Loading label="Counting…" />}
        <ErrorBox error={preview.error} />
        {p && !run.data && (
          <div className="space-y-2 text-sm">
            <p data-testid="bulk-count" className="rounded-md bg-indigo-50 px-3 py-2 text-indigo-900">
              This will {verb.toLowerCase()} <strong className="tabular-nums">{p.count}</strong> job
              {p.count === 1 ? "" : "s"} of {p.matched} matching.
            </p>
            <p className="flex flex-wrap gap-2 text-xs text-slate-600">
              {p.byStatus.map((s) => (
                <span key={s.status} className="inline-flex items-center gap-1">
                  <StatusBadge status={s.status} /> {s.n}
                </span>
              ))}
            </p>
            <p className="text-xs text-slate-600">
              {request.action === "rerun"
                ? "Failed or cancelled jobs without a re-run yet get a new job each; the old ones stay as they are."
                : "Pending jobs are cancelled at once; locked or running ones are asked to stop at their next heartbeat."}
            </p>
            {p.count > 0 && (
              <>
                <p className="text-xs text-slate-600">
                  It runs in the background in batches; you can close this and follow it under “Bulk actions”, pause it,
                  or stop it.
                </p>
                <label className="flex items-center gap-2 text-xs text-slate-700">
                  <input type="checkbox" checked={startPaused} onChange={(e) => setStartPaused(e.target.checked)} />
                  Start paused (run it one batch at a time, or resume when ready)
                </label>
              </>
            )}
          </div>
        )}
        {run.error && <ErrorBox error={run.error} />}
        {run.data && (
          <div data-testid="bulk-done" className="rounded-md bg-slate-50 px-3 py-2">
            <BulkProgress runId={run.data.id} />
          </div>
        )}
        <div className="flex justify-end gap-2 pt-2">
          <button type="button" className={buttonClass()} onClick={() => ref.current?.close()}>
            {run.data ? "Close" : "Back"}
          </button>
          {!run.data && (
            <button
              type="button"
              className={buttonClass(request.action === "cancel" ? "danger" : "primary")}
              disabled={!p || p.count === 0 || run.isPending || preview.isFetching}
              onClick={() =>
                p &&
                run.mutate({
                  action: request.action,
                  scope: request.scope,
                  expectedCount: p.count,
                  paused: startPaused,
                })
              }
            >
              {run.isPending ? "Working…" : `${verb} ${p?.count ?? ""} job${p?.count === 1 ? "" : "s"}`}
            </button>
          )}
        </div>
      </div>
    </dialog>
  );
}
