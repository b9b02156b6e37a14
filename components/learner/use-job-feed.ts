"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { openEventStream } from "@/components/event-stream";
import { useTRPC } from "@/components/trpc/client";
import { refreshAfterWrite } from "@/components/trpc/refresh";
import { isTerminal } from "@/server/jobs/constants";
import type { JobChange } from "@/server/jobs/job-change";
import { isInFlight, type Job } from "./labels";

type Page = { items: Job[]; total: number; page: number; pageSize: number };

/**
 * Live job changes from /api/jobs/events (Server-Sent Events fed by Postgres LISTEN/NOTIFY).
 * A change is written straight into every cached job list so the progress bar moves without a
 * request; a new job or a finished one re-reads what it affects. Returns whether the stream is
 * open: while it is not, the page polls instead (the stream reopens itself: components/event-stream.ts).
 */
export function useJobFeed(): boolean {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const refreshAll = () => queryClient.invalidateQueries(trpc.jobs.pathFilter());

    const onJob = (event: MessageEvent<string>) => {
      const change = JSON.parse(event.data) as JobChange;
      let known = false;
      queryClient.setQueriesData<Page>(trpc.jobs.list.pathFilter(), (page) => {
        if (!page) return page;
        const items = page.items.map((job) => {
          if (job.id !== change.id) return job;
          known = true;
          const { status, attemptNo, stage, progress, cancelRequested } = change;
          return { ...job, status, attemptNo, stage, progress, cancelRequested };
        });
        return { ...page, items };
      });
      const finished = isTerminal(change.status);
      // Details (result, error text) and list filters by status need the server's copy.
      if (change.created || !known || finished) void queryClient.invalidateQueries(trpc.jobs.list.pathFilter());
      if (finished) void queryClient.invalidateQueries(trpc.jobs.get.queryFilter({ jobId: change.id }));
      // A finished job may change the learner's facts: a learning-state analysis adds a point per
      // topic to the mastery chart, a plan gives the top line its first step, a deck waits in Review.
      if (finished) void refreshAfterWrite(queryClient, trpc.progress.pathFilter(), trpc.review.pathFilter());
    };

    const close = openEventStream("/api/jobs/events", {
      onReady: () => setLive(true),
      onDown: () => setLive(false),
      onOpen: () => void refreshAll(),
      // The server may have missed changes (feed reconnect): re-read rather than trust the cache.
      events: { job: onJob, resync: () => void refreshAll() },
    });
    return close;
  }, [queryClient, trpc]);

  return live;
}

/**
 * How often the learner's live list re-reads itself. Without the stream: every 2 s while a job is
 * in flight, else every 10 s. With it: every 5 s while a job is in flight, else never. The stream
 * makes the list move at once; the slow read is what makes it right in the end whatever happened
 * to one push or to a read that crossed it (seen once in a loaded browser run: a job finished on
 * the server while its row said "running" for the next minute).
 */
export function listRefetchMs(live: boolean, items: Pick<Job, "status">[] | undefined): number | false {
  const inFlight = !!items?.some((j) => isInFlight(j.status));
  if (live) return inFlight ? 5000 : false;
  return inFlight ? 2000 : 10_000;
}
