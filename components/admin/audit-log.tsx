"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { useLiveOptions } from "./live";
import { ListTable, Panel } from "./ui";
import { Time } from "@/components/time";

/** The last 200 admin actions: who, when, what, how many. */
export function AuditLog() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.monitor.audit.queryOptions({ limit: 200 }), ...useLiveOptions() });
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <Panel>
        <ListTable
          q={q}
          items={q.data?.items}
          empty="No admin action yet."
          label="Audit entries"
          head={
            <tr>
              <th className="py-1">When</th>
              <th>Who</th>
              <th>Action</th>
              <th className="text-right">Count</th>
              <th className="pl-4">Scope</th>
            </tr>
          }
          row={(a) => (
            <tr key={a.id} className="border-t border-slate-100 align-top">
              <td className="py-1.5 text-xs whitespace-nowrap">
                <Time value={a.createdAt} />
              </td>
              <td className="text-xs">{a.actorEmail ?? a.actorId}</td>
              <td className="font-mono text-xs">{a.action}</td>
              <td className="text-right font-mono text-xs">{a.count}</td>
              <td className="max-w-xl truncate pl-4 font-mono text-xs text-slate-600" title={JSON.stringify(a.scope)}>
                {JSON.stringify(a.scope)}
              </td>
            </tr>
          )}
        />
      </Panel>
    </div>
  );
}
