"use client";

import { producedBy } from "./produced-by";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useTRPC } from "@/components/trpc/client";
import { JobActions } from "./job-actions";
import { useLiveOptions } from "./live";
import { ReadSourceNote } from "./read-source-note";
import { RejectedOutput } from "./rejected-output";
import { ErrorBox, JobLink, Json, Loading, Panel, StatusBadge } from "./ui";
import { Time } from "@/components/time";
import { describeJobLocale, describeLocale } from "@/server/i18n/locales";
import { isHeld } from "@/server/jobs/constants";

/** One job in full: fields, live lease and progress, the timeline with each attempt's error, input, result, lineage. */
export function JobDetail({ jobId }: { jobId: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.explorer.detail.queryOptions({ jobId }), ...useLiveOptions() });
  // Arriving here by an action (a re-run opens its new job) leaves focus on nothing: put it on the
  // job's heading, so keyboard and screen reader users continue from the page they are on.
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = !!q.data;
  useEffect(() => {
    if (loaded && (!document.activeElement || document.activeElement === document.body)) heading.current?.focus();
  }, [loaded, jobId]);
  if (q.isLoading) return <Loading />;
  if (q.error) return <ErrorBox error={q.error} retry={() => void q.refetch()} />;
  const d = q.data!;
  const { job } = d;
  const attempts = [...new Set(d.events.map((e) => e.attemptNo))];
  const held = isHeld(job.status);
  const rejections = new Map(d.rejections.map((r) => [r.attemptNo, r]));
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <Link href="/admin/jobs" className="text-sm text-indigo-700 hover:underline">
          ← Jobs
        </Link>
        <h1 ref={heading} tabIndex={-1} className="font-mono text-lg font-semibold focus:outline-none">
          {job.id}
        </h1>
        <StatusBadge status={job.status} />
        {job.cancelRequested && <span className="text-sm text-amber-700">cancel requested</span>}
        <ReadSourceNote />
      </div>
      <Panel title="Actions">
        <JobActions job={job} />
      </Panel>
      {held && (
        <Panel title="Lease and progress">
          <div className="flex flex-wrap items-center gap-4 text-sm">
            <span>
              Holder <span className="font-mono">{job.lockedBy}</span>
              {d.holder?.version ? ` (v${d.holder.version})` : ""}
            </span>
            <span>
              Lease until <Time value={job.lockUntil} />
            </span>
            <span>Stage {job.stage ?? "—"}</span>
            <div
              className="h-2 w-48 overflow-hidden rounded bg-slate-200"
              role="progressbar"
              aria-valuenow={job.progress}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-label="Progress"
            >
              <div className="h-full bg-indigo-600 transition-all" style={{ width: `${job.progress}%` }} />
            </div>
            <span className="tabular-nums">{job.progress}%</span>
          </div>
        </Panel>
      )}
      <div className="grid gap-4 lg:grid-cols-2">
        <Panel title="Fields">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {[
              ["Type", job.jobType],
              ["User", d.user ? `${d.user.name} <${d.user.email}> (${d.user.id})` : job.userId],
              [
                "Learner language",
                <span key="lang" data-testid="learner-language">
                  {describeLocale(d.user?.locale)}
                </span>,
              ],
              [
                "Result language",
                <span key="job-lang" data-testid="job-language">
                  {describeJobLocale(job.locale)}
                </span>,
              ],
              ["Target", `${job.targetType} ${job.targetId}`],
              ["Priority", job.priority],
              ["Attempt", `${job.attemptNo} · retries ${job.retryCount}/${job.maxRetryCount}`],
              ["Timeout", `${job.timeoutSeconds} s`],
              ["Key mode", job.apiKeyMode],
              ["Model requested", `${job.modelProvider} / ${job.modelName}`],
              [
                "Produced by",
                <span key="producer" data-testid="job-producer">
                  {producedBy(d.result)}
                </span>,
              ],
              ["Prompt / schema", `${job.promptVersion ?? "—"} / ${job.outputSchemaVersion ?? "—"}`],
              ["Idempotency key", job.idempotencyKey ?? "—"],
              ["Created", <Time key="c" value={job.createdAt} />],
              ["Run after", <Time key="r" value={job.runAfter} />],
              ["Locked at", <Time key="l" value={job.lockedAt} />],
              ["Started", <Time key="s" value={job.startedAt} />],
              ["Finished", <Time key="f" value={job.finishedAt} />],
              ["Updated", <Time key="u" value={job.updatedAt} relative />],
              ["Last error", job.errorCode ? `${job.errorCode}: ${job.errorMessage ?? ""}` : "—"],
            ].map(([k, v]) => (
              <div key={String(k)} className="contents">
                <dt className="text-slate-600">{k}</dt>
                <dd className="break-all">{typeof v === "object" ? v : String(v)}</dd>
              </div>
            ))}
          </dl>
        </Panel>
        <Panel title="Lineage">
          <div className="space-y-2 text-sm">
            <p>
              Re-run from:{" "}
              {d.lineage.retriedFrom ? (
                <>
                  <JobLink id={d.lineage.retriedFrom.id} /> <StatusBadge status={d.lineage.retriedFrom.status} />
                </>
              ) : (
                "—"
              )}
            </p>
            <div>
              Re-run as:{" "}
              {d.lineage.reruns.length === 0 ? (
                "—"
              ) : (
                <ul className="mt-1 space-y-1" aria-label="Re-runs">
                  {d.lineage.reruns.map((r) => (
                    <li key={r.id} className="flex items-center gap-2">
                      <JobLink id={r.id} /> <StatusBadge status={r.status} />{" "}
                      <Time className="text-xs text-slate-600" value={r.createdAt} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        </Panel>
      </div>
      <Panel title={`Timeline · ${attempts.filter((a) => a > 0).length} attempt(s)`}>
        <ol className="space-y-1 text-sm" aria-label="Job events">
          {d.events.map((e) => (
            <li
              key={e.id}
              className={`grid grid-cols-[9rem_5rem_1fr] gap-2 rounded px-2 py-1 ${e.errorCode && e.errorCode !== "CANCELLED" ? "bg-rose-50" : ""}`}
            >
              <Time className="text-xs text-slate-600 tabular-nums" value={e.createdAt} />
              <span className="text-xs text-slate-600">attempt {e.attemptNo}</span>
              <span>
                {e.fromStatus ?? "new"} → <StatusBadge status={e.toStatus} />{" "}
                <span className="text-xs text-slate-600">
                  by {e.actorType}
                  {e.actorId ? ` ${e.actorId}` : ""}
                </span>
                {e.errorCode && (
                  <span className="mt-0.5 block text-xs" data-testid="attempt-error">
                    <span className="font-mono text-rose-700">{e.errorCode}</span> {e.errorMessage}
                  </span>
                )}
                {/* Kept by the API's 422 or reported by the Runtime with fail: either way at the attempt that ended here. */}
                {e.errorCode && rejections.get(e.attemptNo) ? (
                  <RejectedOutput rejection={rejections.get(e.attemptNo)!} />
                ) : e.errorCode === "INVALID_SCHEMA" && e.toStatus === "failed" ? (
                  <span className="mt-0.5 block text-xs text-slate-600">
                    The Runtime reported this failure without the output it rejected, so there is no output to show.
                  </span>
                ) : null}
              </span>
            </li>
          ))}
        </ol>
      </Panel>
      <div className="grid gap-4 lg:grid-cols-2">
        <Panel title="Params">
          <Json value={job.params} label="Params" />
        </Panel>
        <Panel title="Result">
          {d.result ? (
            <div className="space-y-2">
              <p className="text-xs text-slate-600">
                attempt {d.result.attemptNo} · {d.result.modelProvider ?? "?"}/{d.result.modelName ?? "?"} ·{" "}
                {d.result.latencyMs ?? "?"} ms
                {d.result.degraded && <span className="ml-1 rounded bg-amber-100 px-1 text-amber-800">degraded</span>}
              </p>
              <Json value={d.result.output} label="Result output" />
            </div>
          ) : (
            <p className="text-sm text-slate-600">No result.</p>
          )}
        </Panel>
      </div>
      <Panel title="Snapshot">
        {d.snapshot ? (
          <details>
            <summary className="cursor-pointer text-sm text-slate-700">
              {d.snapshot.id} · hash {d.snapshot.contentHash.slice(0, 12)}… · <Time value={d.snapshot.createdAt} />
            </summary>
            <div className="mt-2">
              <Json value={d.snapshot.content} label="Snapshot content" />
            </div>
          </details>
        ) : (
          <p className="text-sm text-slate-600">No snapshot.</p>
        )}
      </Panel>
    </div>
  );
}
