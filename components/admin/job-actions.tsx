"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { CANCELLABLE_STATUSES, RERUNNABLE_STATUSES } from "@/server/jobs/constants";
import { buttonClass, ErrorBox, inputClass } from "./ui";
import { refreshAfterWrite } from "@/components/trpc/refresh";

type Job = { id: string; status: string; priority: number; cancelRequested: boolean };

/** Re-run (failed/cancelled), cancel (pending/locked/running) and priority (pending) of one job. */
export function JobActions({ job }: { job: Job }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const refresh = () => void refreshAfterWrite(queryClient, trpc.admin.pathFilter());
  const rerun = useMutation(
    trpc.admin.jobs.rerun.mutationOptions({ onSuccess: (r) => (refresh(), router.push(`/admin/jobs/${r.job.id}`)) }),
  );
  const cancel = useMutation(trpc.admin.jobs.cancel.mutationOptions({ onSuccess: refresh }));
  const priority = useMutation(trpc.admin.actions.setPriority.mutationOptions({ onSuccess: refresh }));
  const [prio, setPrio] = useState(String(job.priority));
  const [confirmCancel, setConfirmCancel] = useState(false);
  const canRerun = (RERUNNABLE_STATUSES as readonly string[]).includes(job.status);
  const canCancel = (CANCELLABLE_STATUSES as readonly string[]).includes(job.status) && !job.cancelRequested;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        {canRerun && (
          <button
            type="button"
            className={buttonClass("primary")}
            // aria-disabled, not disabled: a disabled button would drop keyboard focus to <body>.
            aria-disabled={rerun.isPending || undefined}
            onClick={() => !rerun.isPending && rerun.mutate({ jobId: job.id })}
          >
            {rerun.isPending ? "Re-running…" : "Re-run job"}
          </button>
        )}
        {canCancel &&
          (confirmCancel ? (
            <>
              <button
                type="button"
                className={buttonClass("danger")}
                disabled={cancel.isPending}
                onClick={() => cancel.mutate({ jobId: job.id }, { onSettled: () => setConfirmCancel(false) })}
              >
                Confirm cancel
              </button>
              <button type="button" className={buttonClass("ghost")} onClick={() => setConfirmCancel(false)}>
                Keep running
              </button>
            </>
          ) : (
            <button type="button" className={buttonClass()} onClick={() => setConfirmCancel(true)}>
              Cancel job
            </button>
          ))}
        {job.status === "pending" && (
          <form
            className="flex items-center gap-1"
            onSubmit={(e) => {
              e.preventDefault();
              priority.mutate({ jobId: job.id, priority: Number(prio) });
            }}
          >
            <label className="text-xs text-slate-600" htmlFor="prio">
              Priority (lower runs first)
            </label>
            <input
              id="prio"
              type="number"
              min={-1000}
              max={1000}
              className={`${inputClass} w-20`}
              value={prio}
              onChange={(e) => setPrio(e.target.value)}
            />
            <button
              type="submit"
              className={buttonClass()}
              disabled={priority.isPending || Number(prio) === job.priority}
            >
              Set
            </button>
          </form>
        )}
        {!canRerun && !canCancel && job.status !== "pending" && (
          <span className="text-sm text-slate-600">No action for a {job.status} job.</span>
        )}
      </div>
      <ErrorBox error={rerun.error ?? cancel.error ?? priority.error} />
    </div>
  );
}
