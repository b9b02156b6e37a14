"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { buttonClass, inputClass } from "./ui";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/**
 * A learner's data rights from the console: download their data (GET
 * /api/admin/learners/{id}/export) or erase them (typed email). Both are audited; the server
 * checks the admin role on each.
 */
export function LearnerDataActions({ user }: { user: { id: string; email: string } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState("");
  const erase = useMutation(
    trpc.admin.learnerData.erase.mutationOptions({
      onSuccess: () => void refreshAfterWrite(queryClient),
    }),
  );
  if (erase.data)
    return (
      <p role="status" className="mt-3 rounded bg-emerald-50 p-2 text-sm text-emerald-900">
        Erased (erasure id {erase.data.erasureId}): {erase.data.counts.jobs ?? 0} jobs,{" "}
        {erase.data.counts.materials ?? 0} materials; {erase.data.counts.cancelledInFlight ?? 0} in-flight jobs
        cancelled.
      </p>
    );
  return (
    <div className="mt-3 flex flex-wrap items-end gap-2 border-t border-slate-200 pt-3" data-testid="learner-data">
      <a className={buttonClass("default")} href={`/api/admin/learners/${encodeURIComponent(user.id)}/export`} download>
        Export learner data
      </a>
      {!confirming ? (
        <button type="button" className={buttonClass("danger")} onClick={() => setConfirming(true)}>
          Erase learner…
        </button>
      ) : (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (!erase.isPending) erase.mutate({ userId: user.id, confirmEmail: typed });
          }}
        >
          <label className="flex flex-col gap-0.5 text-xs text-slate-600">
            Type {user.email} to erase everything about this learner
            <input className={inputClass} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          </label>
          <button
            type="submit"
            className={buttonClass("danger")}
            disabled={typed.trim().toLowerCase() !== user.email.toLowerCase()}
          >
            Erase for good
          </button>
          <button type="button" className={buttonClass("default")} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </form>
      )}
      {erase.error && (
        <p role="alert" className="w-full text-sm text-rose-700">
          {erase.error.message}
        </p>
      )}
    </div>
  );
}
