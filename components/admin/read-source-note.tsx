"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { useLiveOptions } from "./live";

/**
 * Where the console's heavy reads came from, when a standby serves them (DATABASE_READ_URL): its
 * replay lag, so an admin knows how old what they see may be, or why the primary answered instead.
 */
export function ReadSourceNote() {
  const trpc = useTRPC();
  const live = useLiveOptions();
  const where = useQuery({ ...trpc.admin.explorer.readSource.queryOptions(), ...live });
  const d = where.data;
  if (!d || (d.source === "primary" && d.reason === "not configured")) return null;
  const text =
    d.source === "replica"
      ? `Read from a standby, ${d.lagSeconds.toFixed(1)} s behind the primary`
      : d.reason === "behind"
        ? `Standby ${d.lagSeconds === null ? "not streaming" : `${d.lagSeconds.toFixed(0)} s behind`}: read from the primary`
        : "Standby unreachable: read from the primary";
  return (
    <span className="text-xs text-slate-500" data-testid="read-source" data-source={d.source}>
      {text}
    </span>
  );
}
