"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { buttonClass, ErrorBox, inputClass, Loading, Panel } from "./ui";
import { Time } from "../time";
import { LearnerDataActions } from "./learner-data";
import { refreshAfterWrite } from "@/components/trpc/refresh";

type Row = {
  metric: string;
  period: "hour" | "day";
  allowed: number;
  used: number;
  resetsAt: string;
  overridden: boolean;
};

/** One learner's job quotas: this window's use per limit, and an audited override of a limit. */
export function LearnerQuotas() {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const [user, setUser] = useState<string | null>(null);
  const quotas = useQuery({ ...trpc.admin.quotas.get.queryOptions({ user: user ?? "" }), enabled: !!user });
  return (
    <Panel title="Learner quotas">
      <form
        className="mb-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setUser(query.trim() || null);
        }}
      >
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          Learner email or id
          <input
            className={inputClass}
            value={query}
            required
            maxLength={200}
            placeholder="ada@example.com"
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
        <button type="submit" className={buttonClass("primary")} disabled={!query.trim()}>
          Show
        </button>
      </form>
      {quotas.isLoading && <Loading />}
      <ErrorBox error={quotas.error} retry={() => void quotas.refetch()} />
      {quotas.data && (
        <>
          <p className="mb-2 text-sm text-slate-700">
            {quotas.data.user.name} <span className="text-slate-600">({quotas.data.user.email})</span>
          </p>
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr>
                <th className="py-1">Limit</th>
                <th>Used</th>
                <th>Allowed</th>
                <th>Resets</th>
                <th>Set a new limit</th>
              </tr>
            </thead>
            <tbody>
              {quotas.data.items.map((row) => (
                <QuotaRow key={`${row.metric}-${row.period}`} userId={quotas.data.user.id} row={row} />
              ))}
            </tbody>
          </table>
          <LearnerDataActions user={quotas.data.user} />
        </>
      )}
    </Panel>
  );
}

function QuotaRow({ userId, row }: { userId: string; row: Row }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [value, setValue] = useState(String(row.allowed));
  const set = useMutation(
    trpc.admin.quotas.setLimit.mutationOptions({
      onSuccess: () => void refreshAfterWrite(queryClient, trpc.admin.quotas.get.pathFilter()),
    }),
  );
  const label =
    row.metric === "tokens"
      ? "Platform-key tokens per day"
      : `${row.metric === "jobs" ? "All analyses" : row.metric.slice("jobs:".length).replaceAll("_", " ")} per ${row.period}`;
  return (
    <tr className="border-t border-slate-100" data-testid={`quota-${row.metric}-${row.period}`}>
      <td className="py-1.5">{label}</td>
      <td>{row.used}</td>
      <td>
        {row.allowed}
        {row.overridden && <span className="ml-1 text-xs text-indigo-700">(raised or lowered for this learner)</span>}
      </td>
      <td className="text-xs">
        <Time value={row.resetsAt} />
      </td>
      <td>
        <form
          className="flex items-center gap-1"
          onSubmit={(e) => {
            e.preventDefault();
            set.mutate({ userId, metric: row.metric, period: row.period, allowed: Number(value) });
          }}
        >
          <input
            className={`${inputClass} w-24`}
            type="number"
            min={0}
            max={1_000_000}
            required
            value={value}
            aria-label={`New limit: ${label}`}
            onChange={(e) => setValue(e.target.value)}
          />
          <button type="submit" className={buttonClass()} disabled={set.isPending}>
            Save
          </button>
          {row.overridden && (
            <button
              type="button"
              className={buttonClass("ghost")}
              disabled={set.isPending}
              onClick={() => set.mutate({ userId, metric: row.metric, period: row.period, allowed: null })}
            >
              Default
            </button>
          )}
        </form>
        {set.error && <p className="text-xs text-rose-700">{set.error.message}</p>}
      </td>
    </tr>
  );
}
