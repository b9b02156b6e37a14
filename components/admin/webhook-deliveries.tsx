"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { useLiveOptions } from "./live";
import { inputClass, JobLink, ListTable, Panel, StatusBadge } from "./ui";

type DeliveryStatus = "pending" | "delivered" | "failed";

/** The delivery row's state in plain words ("failed" on a delivery means retries are over). */
const STATE: Record<DeliveryStatus, { label: string; className: string }> = {
  delivered: { label: "delivered", className: "bg-emerald-100 text-emerald-800" },
  pending: { label: "pending retry", className: "bg-amber-100 text-amber-800" },
  failed: { label: "gave up", className: "bg-rose-100 text-rose-800" },
};

/** The zero-setup webhook delivery log: one row per finished job, newest first (admin.webhooks.list). */
export function WebhookDeliveries() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const q = useQuery({
    ...trpc.admin.webhooks.list.queryOptions({ limit: 200, ...(status ? { status } : {}) }),
    ...useLiveOptions(),
  });
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-xl font-semibold">Webhook deliveries</h1>
        {q.data && (
          <span className="text-sm text-slate-600" data-testid="delivery-count">
            {q.data.items.length < q.data.total
              ? `newest ${q.data.items.length} of ${q.data.total}`
              : `${q.data.total} ${q.data.total === 1 ? "delivery" : "deliveries"}`}
          </span>
        )}
      </div>
      <Panel>
        <div className="mb-3 flex flex-wrap items-end gap-2">
          <label className="flex flex-col gap-0.5 text-xs text-slate-600">
            State
            <select
              className={inputClass}
              value={status}
              onChange={(e) => setStatus(e.target.value as DeliveryStatus | "")}
            >
              <option value="">All</option>
              <option value="delivered">Delivered</option>
              <option value="pending">Pending retry</option>
              <option value="failed">Gave up</option>
            </select>
          </label>
        </div>
        <ListTable
          q={q}
          items={q.data?.items}
          empty={status ? "No delivery in this state." : "No webhook delivery yet."}
          label="Webhook deliveries"
          notice={
            q.data &&
            !q.data.configured && (
              <p className="mb-2 text-sm text-slate-700" data-testid="webhooks-not-configured">
                Webhooks are not configured on this instance: set{" "}
                <code className="font-mono text-xs">JOB_WEBHOOK_URL</code> and{" "}
                <code className="font-mono text-xs">JOB_WEBHOOK_SECRET</code> (without an Inngest server) and each
                finished job is announced and logged here.
              </p>
            )
          }
          head={
            <tr>
              <th className="py-1 pr-3">Job</th>
              <th className="pr-3">Reports</th>
              <th className="pr-3">Delivery</th>
              <th className="pr-3 text-right">Attempts</th>
              <th className="pr-3">Last answer</th>
              <th className="pr-3">Next attempt</th>
              <th className="pr-3">Recorded</th>
              <th>Delivered</th>
            </tr>
          }
          row={(d) => <DeliveryRow key={d.id} d={d} />}
        />
      </Panel>
    </div>
  );
}

type Delivery = {
  id: string;
  jobId: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | Date;
  createdAt: string | Date;
  deliveredAt: string | Date | null;
};

function DeliveryRow({ d }: { d: Delivery }) {
  const reported = d.id.slice(d.jobId.length + 1);
  const state = STATE[d.status];
  return (
    <tr className="border-t border-slate-100 align-top" data-testid={`delivery-${d.jobId}`}>
      <td className="py-1.5 pr-3">
        <JobLink id={d.jobId} />
      </td>
      <td className="pr-3">{reported ? <StatusBadge status={reported} /> : "—"}</td>
      <td className="pr-3">
        <span
          className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${state.className}`}
          data-testid="delivery-state"
        >
          {state.label}
        </span>
      </td>
      <td className="pr-3 text-right font-mono text-xs">{d.attempts}</td>
      <td className="max-w-xs pr-3 text-xs">
        {d.lastStatusCode !== null && <span className="font-mono">HTTP {d.lastStatusCode}</span>}
        {d.lastError && (
          <span className="block truncate text-rose-700" title={d.lastError}>
            {d.lastError}
          </span>
        )}
        {d.lastStatusCode === null && !d.lastError && <span className="text-slate-600">—</span>}
      </td>
      <td className="pr-3 text-xs whitespace-nowrap">
        {d.status === "pending" ? <Time value={d.nextAttemptAt} relative /> : <span className="text-slate-600">—</span>}
      </td>
      <td className="pr-3 text-xs whitespace-nowrap">
        <Time value={d.createdAt} relative />
      </td>
      <td className="text-xs whitespace-nowrap">
        {d.deliveredAt ? <Time value={d.deliveredAt} relative /> : <span className="text-slate-600">—</span>}
      </td>
    </tr>
  );
}
