import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

/** A status page until the learner page lands (issue: the learner page). */
export default async function Home() {
  const counts = await getDb().aiRuntimeJob.groupBy({ by: ["status"], _count: { _all: true } });
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">AI Job Runtime</h1>
      <p className="mt-2 text-slate-600">
        The job engine is running. Runtimes speak the protocol at <code>/internal/runtime/jobs/…</code>.
      </p>
      <h2 className="mt-6 font-medium">Jobs by state</h2>
      <ul className="mt-2 grid grid-cols-2 gap-2" aria-label="jobs by state">
        {counts.length === 0 && <li className="text-slate-500">No jobs yet.</li>}
        {counts.map((c) => (
          <li key={c.status} className="rounded border bg-white px-3 py-2">
            <span className="font-mono">{c.status}</span>: {c._count._all}
          </li>
        ))}
      </ul>
    </main>
  );
}
