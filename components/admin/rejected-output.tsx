"use client";

import type { ReactNode } from "react";

export type Violation = { path: string; rule: string; message: string };
export type Rejection = {
  attemptNo: number;
  output: string;
  truncated: boolean;
  outputBytes: number;
  violations: Violation[];
};

/**
 * What a Runtime sent on an attempt the API refused: the broken rules, then the output with every
 * offending path marked (the JSON is drawn by hand so each node knows its own path). A truncated
 * output no longer parses; it is shown as text.
 */
export function RejectedOutput({ rejection }: { rejection: Rejection }) {
  const paths = new Set(rejection.violations.map((v) => v.path));
  let parsed: { ok: true; value: unknown } | { ok: false } = { ok: false };
  if (!rejection.truncated) {
    try {
      parsed = { ok: true, value: JSON.parse(rejection.output) };
    } catch {
      parsed = { ok: false };
    }
  }
  return (
    <div className="mt-2 space-y-2" data-testid={`rejection-${rejection.attemptNo}`}>
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Rules broken on attempt {rejection.attemptNo}</caption>
        <thead className="text-slate-600">
          <tr>
            <th scope="col" className="pr-2 font-medium">
              Path
            </th>
            <th scope="col" className="pr-2 font-medium">
              Rule
            </th>
            <th scope="col" className="font-medium">
              Message
            </th>
          </tr>
        </thead>
        <tbody>
          {rejection.violations.map((v, i) => (
            <tr key={i} data-testid="violation" className="align-top">
              <td className="pr-2 font-mono text-rose-800">{v.path || "(output)"}</td>
              <td className="pr-2 font-mono">{v.rule}</td>
              <td className="text-slate-800">{v.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details open>
        <summary className="cursor-pointer text-xs text-slate-700">
          Output sent ({formatBytes(rejection.outputBytes)}
          {rejection.truncated ? ", truncated at 64 KB" : ""})
        </summary>
        <pre
          tabIndex={0}
          role="region"
          aria-label="Rejected output"
          className="mt-1 max-h-96 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
          data-testid="rejected-output"
        >
          {parsed.ok ? <Node value={parsed.value} path="" marks={paths} indent={0} /> : rejection.output}
          {rejection.truncated && <span className="text-amber-300">{"\n"}… truncated</span>}
        </pre>
      </details>
    </div>
  );
}

function formatBytes(n: number) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}

const pad = (n: number) => "  ".repeat(n);

/** One JSON value at `path`; marked when a violation names exactly this path. */
function Node({
  value,
  path,
  marks,
  indent,
}: {
  value: unknown;
  path: string;
  marks: Set<string>;
  indent: number;
}): ReactNode {
  const child = (key: string | number) => (path ? `${path}.${key}` : String(key));
  let body: ReactNode;
  if (Array.isArray(value)) {
    body =
      value.length === 0 ? (
        "[]"
      ) : (
        <>
          {"[\n"}
          {value.map((v, i) => (
            <span key={i}>
              {pad(indent + 1)}
              <Node value={v} path={child(i)} marks={marks} indent={indent + 1} />
              {i < value.length - 1 ? ",\n" : "\n"}
            </span>
          ))}
          {pad(indent)}]
        </>
      );
  } else if (value && typeof value === "object") {
    const entries = Object.entries(value);
    body =
      entries.length === 0 ? (
        "{}"
      ) : (
        <>
          {"{\n"}
          {entries.map(([k, v], i) => (
            <span key={k}>
              {pad(indent + 1)}
              <span className="text-sky-300">{JSON.stringify(k)}</span>:{" "}
              <Node value={v} path={child(k)} marks={marks} indent={indent + 1} />
              {i < entries.length - 1 ? ",\n" : "\n"}
            </span>
          ))}
          {pad(indent)}
          {"}"}
        </>
      );
  } else {
    body = JSON.stringify(value);
  }
  return marks.has(path) && path ? (
    <mark className="rounded bg-rose-300 text-slate-950" data-path={path} title="violates a rule (see above)">
      {body}
    </mark>
  ) : (
    body
  );
}
