"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { useLiveOptions } from "./live";
import { Empty, ErrorBox, Loading, Panel, ScrollBox } from "./ui";
import { Time } from "@/components/time";

/** The last 200 admin actions: who, when, what, how many. */
export function AuditLog() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.monitor.audit.queryOptions({ limit: 200 }), ...useLiveOptions() });
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <Panel>
        {q.isLoading && <Loading />}
        <ErrorBox error={q.error} retry={() => void q.refetch()} />
        {q.data && q.data.items.length === 0 && <Empty>No admin action yet.</Empty>}
        {q.data && q.data.items.length > 0 && (
          <ScrollBox label="Audit entries">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr><th className="py-1">When</th><th>Who</th><th>Action</th><th className="text-right">Count</th><th className="pl-4">Scope</th></tr>
            </thead>
            <tbody>
              {q.data.items.map((a) => (
                <tr key={a.id} className="border-t border-slate-100 align-top">
                  <td className="py-1.5 text-xs whitespace-nowrap"><Time value={a.createdAt} /></td>
                  <td className="text-xs">{a.actorEmail ?? a.actorId}</td>
                  <td className="font-mono text-xs">{a.action}</td>
                  <td className="text-right font-mono text-xs">{a.count}</td>
                  <td className="max-w-xl truncate pl-4 font-mono text-xs text-slate-600" title={JSON.stringify(a.scope)}>{JSON.stringify(a.scope)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </ScrollBox>
        )}
      </Panel>
    </div>
  );
}
