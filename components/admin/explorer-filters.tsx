"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import type { JobFilter, JobSort } from "@/server/admin/filter-schema";
import { JOB_STATUSES, JOB_TYPES, TARGET_TYPES } from "@/server/jobs/constants";
import { QUALITY_RULES } from "@/server/job-types/catalogue";
import { buttonClass, inputClass } from "./ui";

const SCHEMA_RULES = [
  "schema.invalid_type",
  "schema.invalid_value",
  "schema.too_small",
  "schema.too_big",
  "schema.unrecognized_keys",
  "schema.invalid_format",
];

/**
 * The explorer's filter lives in the URL (?status=failed,cancelled&type=…&q=…), so a view can be
 * bookmarked, shared and reloaded. The form below writes the parameters; this reads them, keeping
 * only values the filter schema accepts.
 */
function readFilterParams(p: URLSearchParams): { filter: JobFilter; sort: JobSort } {
  const list = <T extends string>(key: string, allowed: readonly T[]) => {
    const v = (p.get(key) ?? "").split(",").filter((x): x is T => (allowed as readonly string[]).includes(x));
    return v.length ? v : undefined;
  };
  const s = (key: string) => p.get(key)?.trim() || undefined;
  const iso = (key: string) => {
    const v = s(key);
    const d = v ? new Date(v) : null;
    return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
  };
  const jpath = s("jpath");
  const targetType = s("targetType");
  const filter: JobFilter = {
    status: list("status", JOB_STATUSES),
    jobType: list("type", JOB_TYPES),
    user: s("user"),
    targetType: TARGET_TYPES.find((t) => t === targetType),
    targetId: s("targetId"),
    errorCode: s("error"),
    rule: s("rule"),
    runtimeId: s("runtime"),
    createdFrom: iso("from"),
    createdTo: iso("to"),
    q: s("q"),
    json: jpath
      ? { in: p.get("jin") === "output" ? "output" : "params", path: jpath, value: p.get("jval") ?? "" }
      : undefined,
  };
  for (const k of Object.keys(filter) as (keyof JobFilter)[]) if (filter[k] === undefined) delete filter[k];
  return { filter, sort: p.get("sort") === "createdAt_asc" ? "createdAt_asc" : "createdAt_desc" };
}

export function useExplorerParams() {
  const params = useSearchParams();
  const key = params?.toString() ?? "";
  return useMemo(() => readFilterParams(new URLSearchParams(key)), [key]);
}

const FIELDS = [
  ["user", "User", "id or email"],
  ["error", "Error code", "e.g. INVALID_SCHEMA"],
  ["rule", "Violated rule", "e.g. one_correct_option"],
  ["runtime", "Runtime instance", "instance id"],
  ["targetId", "Target id", ""],
] as const;

/** The filter form: edits a draft, applies it to the URL on submit (Enter works everywhere). */
export function ExplorerFilters() {
  const router = useRouter();
  const params = useSearchParams();
  const [draft, setDraft] = useState(() => Object.fromEntries(params?.entries() ?? []) as Record<string, string>);
  const set = (k: string, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const toggle = (key: "status" | "type", value: string) => {
    const cur = new Set((draft[key] ?? "").split(",").filter(Boolean));
    if (cur.has(value)) cur.delete(value);
    else cur.add(value);
    set(key, [...cur].join(","));
  };
  const apply = (d: Record<string, string>) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries(d)) if (v?.trim()) next.set(k, v.trim());
    router.push(`/admin/jobs${next.size ? `?${next}` : ""}`);
  };
  const chosen = (key: string) => new Set((draft[key] ?? "").split(","));
  // Everything but the search box folds away, so a keyboard user reaches the results in a few
  // tabs; it starts open when the URL already sets one of those filters.
  const advanced = Object.keys(draft).filter(
    (k) => k !== "q" && k !== "sort" && k !== "jin" && draft[k]?.trim(),
  ).length;
  const [open, setOpen] = useState(advanced > 0);
  return (
    <form
      role="search"
      aria-label="Filter jobs"
      onSubmit={(e) => {
        e.preventDefault();
        apply(draft);
      }}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 shadow-sm"
    >
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex min-w-48 flex-1 flex-col gap-0.5 text-xs text-slate-600">
          Search
          <input
            className={inputClass}
            name="q"
            value={draft.q ?? ""}
            placeholder="job id, idempotency key, user id or email"
            onChange={(e) => set("q", e.target.value)}
          />
        </label>
        <button type="submit" className={buttonClass("primary")}>
          Apply filters
        </button>
        <button
          type="button"
          className={buttonClass("ghost")}
          onClick={() => {
            setDraft({});
            apply({});
          }}
        >
          Clear
        </button>
      </div>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)} className="group">
        <summary className="cursor-pointer rounded text-sm font-medium text-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
          More filters{advanced ? ` (${advanced} set)` : ""}
        </summary>
        <div className="mt-3 space-y-3">
          <ChipGroup
            legend="State"
            short="State"
            values={JOB_STATUSES.filter((s) => s !== "expired")}
            chosen={chosen("status")}
            toggle={(v) => toggle("status", v)}
          />
          <ChipGroup
            legend="Job type"
            short="Type"
            values={JOB_TYPES}
            chosen={chosen("type")}
            toggle={(v) => toggle("type", v)}
          />
          <div className="grid grid-cols-2 gap-2 md:grid-cols-6">
            {FIELDS.map(([key, label, placeholder]) => (
              <label key={key} className="flex flex-col gap-0.5 text-xs text-slate-600">
                {label}
                <input
                  className={inputClass}
                  name={key}
                  value={draft[key] ?? ""}
                  placeholder={placeholder}
                  onChange={(e) => set(key, e.target.value)}
                  list={key === "rule" ? "rule-names" : undefined}
                />
              </label>
            ))}
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Target type
              <select
                className={inputClass}
                value={draft.targetType ?? ""}
                onChange={(e) => set("targetType", e.target.value)}
              >
                <option value="">any</option>
                <option value="user">user</option>
                <option value="material">material</option>
                <option value="knowledge_point">knowledge point</option>
              </select>
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Created from
              <input
                type="datetime-local"
                className={inputClass}
                value={draft.from ?? ""}
                onChange={(e) => set("from", e.target.value)}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Created before
              <input
                type="datetime-local"
                className={inputClass}
                value={draft.to ?? ""}
                onChange={(e) => set("to", e.target.value)}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Field in
              <select className={inputClass} value={draft.jin ?? "params"} onChange={(e) => set("jin", e.target.value)}>
                <option value="params">params</option>
                <option value="output">output</option>
              </select>
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Field path
              <input
                className={inputClass}
                value={draft.jpath ?? ""}
                placeholder="e.g. count"
                onChange={(e) => set("jpath", e.target.value)}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Field value
              <input
                className={inputClass}
                value={draft.jval ?? ""}
                placeholder="JSON or text"
                onChange={(e) => set("jval", e.target.value)}
              />
            </label>
            <label className="flex flex-col gap-0.5 text-xs text-slate-600">
              Order
              <select
                className={inputClass}
                value={draft.sort ?? "createdAt_desc"}
                onChange={(e) => set("sort", e.target.value)}
              >
                <option value="createdAt_desc">Newest first</option>
                <option value="createdAt_asc">Oldest first</option>
              </select>
            </label>
          </div>
        </div>
      </details>
      {/* Suggestions for "Violated rule": the quality rules and zod's usual issue codes. */}
      <datalist id="rule-names">
        {[...QUALITY_RULES, ...SCHEMA_RULES].map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
    </form>
  );
}

/** A row of toggle chips (checkboxes styled as pills) for one multi-value filter. */
function ChipGroup(props: {
  legend: string;
  short: string;
  values: readonly string[];
  chosen: Set<string>;
  toggle: (value: string) => void;
}) {
  return (
    <fieldset className="flex flex-wrap items-center gap-1.5">
      <legend className="sr-only">{props.legend}</legend>
      <span aria-hidden="true" className="w-14 text-xs font-medium text-slate-600">
        {props.short}
      </span>
      {props.values.map((v) => (
        <label
          key={v}
          className={`cursor-pointer rounded-full border px-2.5 py-0.5 text-xs focus-within:ring-2 focus-within:ring-indigo-500 ${props.chosen.has(v) ? "border-indigo-600 bg-indigo-600 text-white" : "border-slate-300 text-slate-700 hover:bg-slate-50"}`}
        >
          <input type="checkbox" className="sr-only" checked={props.chosen.has(v)} onChange={() => props.toggle(v)} />
          {v}
        </label>
      ))}
    </fieldset>
  );
}
