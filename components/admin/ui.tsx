import Link from "next/link";

/** Small shared pieces of the console: badges, panels, states, formatting. */
const STATUS_STYLE: Record<string, string> = {
  pending: "bg-sky-100 text-sky-800",
  locked: "bg-violet-100 text-violet-800",
  running: "bg-indigo-100 text-indigo-800",
  succeeded: "bg-emerald-100 text-emerald-800",
  failed: "bg-rose-100 text-rose-800",
  cancelled: "bg-slate-200 text-slate-700",
  expired: "bg-amber-100 text-amber-800",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[status] ?? "bg-slate-100"}`}
    >
      {status}
    </span>
  );
}

export function Panel({
  title,
  children,
  actions,
  className = "",
}: {
  title?: string;
  children: React.ReactNode;
  actions?: React.ReactNode;
  className?: string;
}) {
  return (
    <section className={`rounded-lg border border-slate-200 bg-white p-4 shadow-sm ${className}`}>
      {(title || actions) && (
        <div className="mb-3 flex items-center justify-between gap-2">
          {title && <h2 className="text-sm font-semibold tracking-wide text-slate-700 uppercase">{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

/**
 * A table's own horizontal scroll box (the page never scrolls sideways on a phone). Focusable
 * and named, so a keyboard user can scroll it too.
 */
export function ScrollBox({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <div
      tabIndex={0}
      role="region"
      aria-label={label}
      className={`overflow-x-auto focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${className}`}
    >
      {children}
    </div>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p role="status" className="py-6 text-center text-sm text-slate-600">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="py-6 text-center text-sm text-slate-600">{children}</p>;
}

export function ErrorBox({ error, retry }: { error: { message: string } | null; retry?: () => void }) {
  if (!error) return null;
  return (
    <div
      role="alert"
      className="flex items-center justify-between gap-3 rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800"
    >
      <span>{error.message}</span>
      {retry && (
        <button type="button" className={buttonClass("ghost")} onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function buttonClass(kind: "primary" | "danger" | "ghost" | "default" = "default") {
  const base =
    "inline-flex items-center justify-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:cursor-not-allowed disabled:opacity-50";
  const kinds = {
    primary: "bg-indigo-600 text-white hover:bg-indigo-700",
    danger: "bg-rose-600 text-white hover:bg-rose-700",
    ghost: "text-slate-700 hover:bg-slate-100",
    default: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  };
  return `${base} ${kinds[kind]}`;
}

export const inputClass =
  "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500";

export function JobLink({ id }: { id: string }) {
  return (
    <Link href={`/admin/jobs/${id}`} className="font-mono text-xs text-indigo-700 hover:underline">
      {id}
    </Link>
  );
}

export function fmtSeconds(s: number | null | undefined) {
  if (s === null || s === undefined) return "—";
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 90) return `${s.toFixed(1)} s`;
  if (s < 5400) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export function Json({ value, label = "JSON" }: { value: unknown; label?: string }) {
  // A scroll box must be reachable by keyboard to be scrolled: a tab stop, named for screen readers.
  return (
    <pre
      tabIndex={0}
      role="region"
      aria-label={label}
      className="max-h-96 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
    >
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

type ListQuery = { isLoading: boolean; error: { message: string } | null; refetch: () => unknown };

/**
 * The shell of a console list: loading, the error with a retry, `notice` (if any), an empty
 * message, or the table (its head, then `row` per item) in a keyboard-scrollable box.
 */
export function ListTable<T>({
  q,
  items,
  empty,
  label,
  head,
  row,
  notice,
}: {
  q: ListQuery;
  items: T[] | undefined;
  empty: React.ReactNode;
  label: string;
  head: React.ReactNode;
  row: (item: T) => React.ReactNode;
  notice?: React.ReactNode;
}) {
  return (
    <>
      {q.isLoading && <Loading />}
      <ErrorBox error={q.error} retry={() => void q.refetch()} />
      {notice}
      {items && items.length === 0 && <Empty>{empty}</Empty>}
      {items && items.length > 0 && (
        <ScrollBox label={label}>
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">{head}</thead>
            <tbody>{items.map(row)}</tbody>
          </table>
        </ScrollBox>
      )}
    </>
  );
}
