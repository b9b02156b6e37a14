"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { BulkDialog, type BulkRequest } from "./bulk-dialog";
import { ExplorerFilters, useExplorerParams } from "./explorer-filters";
import { useLiveOptions } from "./live";
import { ReadSourceNote } from "./read-source-note";
import { buttonClass, Empty, ErrorBox, Loading, ScrollBox, StatusBadge } from "./ui";
import { Time } from "@/components/time";
import { isHeld } from "@/server/jobs/constants";
import { describeJobLocale } from "@/server/i18n/locales";

const PAGE = 50;

/** The job explorer: URL filters, keyset pages ("Load more"), row selection and bulk actions. */
export function JobExplorer() {
  const trpc = useTRPC();
  const { filter, sort } = useExplorerParams();
  const live = useLiveOptions();
  const list = useInfiniteQuery({
    ...trpc.admin.explorer.list.infiniteQueryOptions(
      { filter, sort, limit: PAGE },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
    refetchInterval: live.refetchInterval,
  });
  const count = useQuery({ ...trpc.admin.explorer.count.queryOptions({ filter }), ...live });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulk, setBulk] = useState<BulkRequest | null>(null);
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const allOnScreen = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const total = count.data ? `${count.data.total.toLocaleString()}${count.data.capped ? "+" : ""}` : "…";
  const filterLabel = Object.keys(filter).length ? `every job matching the filter (${total})` : `every job (${total})`;

  return (
    <div className="space-y-3">
      <div className="flex items-baseline justify-between">
        <h1 className="text-xl font-semibold">Jobs</h1>
        <span className="flex items-baseline gap-3">
          <ReadSourceNote />
          <span className="text-sm text-slate-600" data-testid="match-count">
            {total} matching
          </span>
        </span>
      </div>
      <ExplorerFilters />
      <div
        className="flex flex-wrap items-center gap-2 rounded-md border border-slate-200 bg-white px-3 py-2 text-sm"
        role="toolbar"
        aria-label="Bulk actions"
      >
        <span className="text-slate-600">{selected.size} selected</span>
        <button
          type="button"
          className={buttonClass()}
          disabled={!selected.size}
          onClick={() =>
            setBulk({ action: "rerun", scope: { ids: [...selected] }, label: `${selected.size} selected job(s)` })
          }
        >
          Re-run selected
        </button>
        <button
          type="button"
          className={buttonClass()}
          disabled={!selected.size}
          onClick={() =>
            setBulk({ action: "cancel", scope: { ids: [...selected] }, label: `${selected.size} selected job(s)` })
          }
        >
          Cancel selected
        </button>
        <span className="mx-1 h-5 w-px bg-slate-200" aria-hidden />
        <button
          type="button"
          className={buttonClass()}
          onClick={() => setBulk({ action: "rerun", scope: { filter }, label: filterLabel })}
        >
          Re-run all matching…
        </button>
        <button
          type="button"
          className={buttonClass()}
          onClick={() => setBulk({ action: "cancel", scope: { filter }, label: filterLabel })}
        >
          Cancel all matching…
        </button>
        {selected.size > 0 && (
          <button type="button" className={buttonClass("ghost")} onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        )}
      </div>
      <ErrorBox error={list.error} retry={() => void list.refetch()} />
      <ScrollBox label="Jobs" className="rounded-lg border border-slate-200 bg-white shadow-sm">
        <table className="w-full text-left text-sm">
          <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 uppercase">
            <tr>
              <th className="w-8 px-2 py-2">
                <input
                  type="checkbox"
                  aria-label="Select all loaded rows"
                  checked={allOnScreen}
                  onChange={() => setSelected(allOnScreen ? new Set() : new Set(rows.map((r) => r.id)))}
                />
              </th>
              <th className="px-2 py-2">Job</th>
              <th className="px-2 py-2">State</th>
              <th className="px-2 py-2">Type</th>
              <th className="px-2 py-2">User</th>
              <th className="px-2 py-2 text-right">Attempts</th>
              <th className="px-2 py-2">Last error</th>
              <th className="px-2 py-2">Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.id}
                className={`border-b border-slate-100 hover:bg-slate-50 ${selected.has(r.id) ? "bg-indigo-50/60" : ""}`}
              >
                <td className="px-2 py-1.5">
                  <input
                    type="checkbox"
                    aria-label={`Select job ${r.id}`}
                    checked={selected.has(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td className="px-2 py-1.5">
                  <Link href={`/admin/jobs/${r.id}`} className="font-mono text-xs text-indigo-700 hover:underline">
                    {r.id}
                  </Link>
                  {r.retriedFromJobId && (
                    <span className="ml-1 text-xs text-slate-600" title={`re-run of ${r.retriedFromJobId}`}>
                      ↻
                    </span>
                  )}
                </td>
                <td className="px-2 py-1.5 whitespace-nowrap">
                  <StatusBadge status={r.status} />
                  {r.cancelRequested && <span className="ml-1 text-xs text-amber-700">stopping</span>}
                  {isHeld(r.status) && r.stage && (
                    <span className="ml-1 text-xs text-slate-600">
                      {r.stage} {r.progress}%
                    </span>
                  )}
                </td>
                <td className="px-2 py-1.5 text-xs whitespace-nowrap">
                  {r.jobType}
                  {r.locale !== "en" && (
                    <span
                      className="ml-1 rounded bg-slate-100 px-1"
                      data-testid="job-locale"
                      title={`results in ${describeJobLocale(r.locale)}`}
                    >
                      {r.locale}
                    </span>
                  )}
                </td>
                <td className="max-w-48 px-2 py-1.5 text-xs" title={r.userId}>
                  <span className="block truncate">{r.userName ?? r.userEmail ?? r.userId}</span>
                  <span className="block truncate text-slate-600">
                    {r.userName ? r.userEmail : null}
                    {r.userLocale && (
                      <span
                        className="ml-1 rounded bg-slate-100 px-1"
                        data-testid="user-locale"
                        title="learner's language"
                      >
                        {r.userLocale}
                      </span>
                    )}
                  </span>
                </td>
                <td
                  className="px-2 py-1.5 text-right font-mono text-xs tabular-nums"
                  title={`${r.retryCount} retries of ${r.maxRetryCount}`}
                >
                  {r.attemptNo}
                </td>
                <td className="max-w-72 px-2 py-1.5 text-xs">
                  {r.errorCode ? (
                    <span title={r.errorMessage ?? ""} className="block truncate">
                      <span className="font-mono text-rose-700">{r.errorCode}</span> {r.errorMessage}
                    </span>
                  ) : (
                    <span className="text-slate-600">—</span>
                  )}
                </td>
                <td className="px-2 py-1.5 text-xs whitespace-nowrap text-slate-600">
                  <Time value={r.createdAt} relative />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.isLoading && <Loading />}
        {!list.isLoading && !list.error && rows.length === 0 && <Empty>No job matches these filters.</Empty>}
      </ScrollBox>
      {list.hasNextPage && (
        <div className="flex justify-center">
          <button
            type="button"
            className={buttonClass()}
            disabled={list.isFetchingNextPage}
            onClick={() => void list.fetchNextPage()}
          >
            {list.isFetchingNextPage ? "Loading…" : `Load ${PAGE} more`}
          </button>
        </div>
      )}
      {bulk && (
        <BulkDialog
          request={bulk}
          onClose={() => {
            setBulk(null);
            setSelected(new Set());
          }}
        />
      )}
    </div>
  );
}
