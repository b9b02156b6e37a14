"use client";

import { useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { openEventStream } from "@/components/event-stream";
import { useTRPC } from "@/components/trpc/client";

type Live = { paused: boolean; setPaused: (p: boolean) => void; connected: boolean; refetchInterval: number | false };
const LiveContext = createContext<Live>({
  paused: false,
  setPaused: () => {},
  connected: false,
  refetchInterval: 5_000,
});

/** Console views refresh at most this often while job changes stream in. */
const THROTTLE_MS = 1_500;
/** Polling fallback while the event stream is down. */
const POLL_MS = 5_000;

/**
 * Live refresh for the console: an admin's /api/jobs/events stream carries every job's changes;
 * each burst of changes re-reads the admin queries (throttled). While the stream is down the
 * queries poll instead and the stream reopens itself (components/event-stream.ts); "pause" stops both, so an admin can read a table that would otherwise move.
 */
export function LiveProvider({ children }: { children: React.ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [paused, setPaused] = useState(false);
  const [connected, setConnected] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (paused || typeof EventSource === "undefined") return;
    const refresh = () => {
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        void queryClient.invalidateQueries(trpc.admin.pathFilter());
      }, THROTTLE_MS);
    };
    const close = openEventStream("/api/jobs/events", {
      onReady: () => setConnected(true),
      onDown: () => setConnected(false),
      // A reopened stream may have missed changes: re-read once it is back.
      onOpen: refresh,
      events: { job: refresh, resync: refresh },
    });
    return () => {
      close();
      setConnected(false);
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [paused, queryClient, trpc]);

  const refetchInterval = paused ? false : connected ? 30_000 : POLL_MS;
  return (
    <LiveContext.Provider value={{ paused, setPaused, connected, refetchInterval }}>{children}</LiveContext.Provider>
  );
}

export const useLive = () => useContext(LiveContext);

/** Options every live console query takes: refresh per the live state, keep showing old data meanwhile. */
export function useLiveOptions() {
  const { refetchInterval, paused } = useLive();
  return { refetchInterval, refetchOnWindowFocus: !paused, placeholderData: <T,>(prev: T | undefined) => prev };
}

export function LiveToggle() {
  const { paused, setPaused, connected } = useLive();
  const label = paused ? "Paused" : connected ? "Live" : "Polling";
  return (
    <button
      type="button"
      onClick={() => setPaused(!paused)}
      aria-pressed={paused}
      className="inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
      title={paused ? "Resume live refresh" : "Pause live refresh"}
    >
      <span
        className={`h-2 w-2 rounded-full ${paused ? "bg-slate-400" : connected ? "animate-pulse bg-emerald-500" : "bg-amber-500"}`}
        aria-hidden
      />
      {label}
      <span className="text-slate-600">· {paused ? "resume" : "pause"}</span>
    </button>
  );
}
