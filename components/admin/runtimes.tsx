"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { useLiveOptions } from "./live";
import { RuntimeKeys } from "./runtime-keys";
import { ServiceKeys } from "./service-keys";
import { Empty, ErrorBox, JobLink, Loading, Panel, ScrollBox } from "./ui";
import { Time } from "@/components/time";

/** A Runtime that has not called in for this long is shown as silent (its leases will pass). */
const SILENT_AFTER_MS = 60_000;

export function Runtimes() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.monitor.runtimes.queryOptions(), ...useLiveOptions() });
  const nowMs = q.dataUpdatedAt || 0;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Runtimes & keys</h1>
      <Panel title="Runtime instances">
        {q.isLoading && <Loading />}
        <ErrorBox error={q.error} retry={() => void q.refetch()} />
        {q.data && q.data.items.length === 0 && <Empty>No Runtime has called in yet.</Empty>}
        {q.data && q.data.items.length > 0 && (
          <ScrollBox label="Runtime instances">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-slate-600 uppercase">
                <tr>
                  <th className="py-1">Instance</th>
                  <th>Version</th>
                  <th>Protocol</th>
                  <th>Capabilities</th>
                  <th>Last seen</th>
                  <th className="text-right">In hand</th>
                  <th className="text-right">OK 24 h</th>
                  <th className="text-right">Failed 24 h</th>
                </tr>
              </thead>
              <tbody>
                {q.data.items.map((r) => {
                  const silent = nowMs - new Date(r.lastSeenAt).getTime() > SILENT_AFTER_MS;
                  return (
                    <tr key={r.id} className="border-t border-slate-100 align-top">
                      <td className="py-1.5">
                        <span
                          className={`mr-1.5 inline-block h-2 w-2 rounded-full ${silent ? "bg-slate-300" : "bg-emerald-500"}`}
                          aria-hidden="true"
                        />
                        <span className="sr-only">{silent ? "silent: " : "active: "}</span>
                        <Link
                          href={`/admin/jobs?runtime=${encodeURIComponent(r.id)}`}
                          className="font-mono text-xs text-indigo-700 hover:underline"
                        >
                          {r.id}
                        </Link>
                      </td>
                      <td className="text-xs">{r.version ?? "—"}</td>
                      <td className="text-xs" data-testid="runtime-protocol">
                        {r.protocolVersion ?? "—"}
                        {r.protocolDeprecation && (
                          <div className="text-amber-700">
                            deprecated
                            {r.protocolDeprecation.sunsetAt && (
                              <>
                                , served until <Time value={r.protocolDeprecation.sunsetAt} />
                              </>
                            )}
                          </div>
                        )}
                      </td>
                      <td className="max-w-64 text-xs text-slate-600">{r.capabilities.join(", ") || "—"}</td>
                      <td className="text-xs">
                        <Time value={r.lastSeenAt} relative />
                      </td>
                      <td className="text-right font-mono text-xs">
                        {r.jobsInHand}
                        {r.heldJobIds.length > 0 && (
                          <div className="flex flex-col items-end">
                            {r.heldJobIds.slice(0, 3).map((id) => (
                              <JobLink key={id} id={id} />
                            ))}
                          </div>
                        )}
                      </td>
                      <td className="text-right font-mono text-xs text-emerald-700">{r.recentSucceeded}</td>
                      <td className="text-right font-mono text-xs text-rose-700">{r.recentFailed}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollBox>
        )}
      </Panel>
      <RuntimeKeys />
      <ServiceKeys />
    </div>
  );
}
