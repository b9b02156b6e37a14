"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";

/** Alerts are about time passing (a queue ageing, a Runtime going quiet) as much as about job changes: poll. */
const ALERT_POLL_MS = 15_000;

const TITLES = {
  NO_RUNTIME_FOR_TYPE: "Work is waiting that no Runtime takes.",
  OLDEST_PENDING: "The queue is not moving.",
  FAILURE_RATE: "Failures are spiking.",
  DIGEST_FAILING: "Review digest emails are failing.",
} as const;

const LINKS = {
  NO_RUNTIME_FOR_TYPE: { href: "/admin/runtimes", label: "Runtimes" },
  OLDEST_PENDING: { href: "/admin/jobs?status=pending&sort=createdAt_asc", label: "Oldest pending jobs" },
  FAILURE_RATE: { href: "/admin/jobs?status=failed", label: "Failed jobs" },
  DIGEST_FAILING: { href: "/admin/learners", label: "Learners" },
} as const;

/** The console-wide banner: one line per active alert, on every admin page, with where to look next. */
export function AlertBanner() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.monitor.alerts.queryOptions(), refetchInterval: ALERT_POLL_MS });
  const alerts = q.data?.alerts ?? [];
  if (!alerts.length) return null;
  return (
    <div role="alert" aria-label="Alerts" className="border-b border-amber-300 bg-amber-50" data-testid="alert-banner">
      <ul className="mx-auto max-w-7xl space-y-1 px-4 py-2 text-sm text-amber-950">
        {alerts.map((a) => (
          <li key={a.code} data-alert={a.code} className="flex flex-wrap items-baseline gap-x-2">
            <strong className="font-semibold">{TITLES[a.code]}</strong>
            <span>{a.message}.</span>
            <Link
              href={LINKS[a.code].href}
              className="text-indigo-800 underline underline-offset-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
            >
              {LINKS[a.code].label}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
