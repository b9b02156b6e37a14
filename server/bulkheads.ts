import { setting } from "./config";
import { AppError } from "./errors";
import { FairTurns } from "./fair-turns";

/**
 * Caps on heavy work, per owner and per app process, so that no learner, key or client can take
 * what the others need (docs/security.md, "Bulkheads"). In memory: each process counts its own.
 *
 * Activity ingestion takes a slot of its key and one of the process for the whole call; a slot it
 * cannot have is a 429 `RATE_LIMITED` with `retryAfterSeconds` (the doors add `Retry-After`).
 *
 * Exports are fair work, not held slots: a tenant (a person, or a service key) keeps at most its own
 * number of downloads open (EXPORTS_PER_LEARNER, EXPORTS_PER_KEY), and the process's
 * EXPORTS_PER_INSTANCE are turns at reading a page, taken for one page and given back, handed out
 * one tenant after another (server/fair-turns.ts). A download waiting on its reader holds no turn,
 * so nobody's open downloads keep another tenant's export from starting; an export whose turn is
 * not free waits for it (one turn of each tenant before it at most) instead of being refused.
 */
export type Lane = "ingest";

/** Who a piece of work counts against: a learner, a service key, both. */
export type Owner = { learner?: string; key?: string };

const CAPS = {
  ingest: {
    learner: () => Infinity,
    key: () => setting("INGEST_PER_KEY"),
    instance: () => setting("INGEST_PER_INSTANCE"),
  },
} satisfies Record<Lane, Record<"learner" | "key" | "instance", () => number>>;

/** Seconds a refused caller is told to wait: about how long the work it waits behind takes. */
export const BUSY_RETRY_AFTER_SECONDS = { ingest: 2 } as const;

const held = new Map<string, number>();

const count = (name: string) => held.get(name) ?? 0;

/** The slots `owner` would take in `lane`, with their caps. */
function slotsOf(lane: Lane, owner: Owner): { name: string; cap: number; who: string }[] {
  const caps = CAPS[lane];
  return [
    ...(owner.learner ? [{ name: `${lane}:learner:${owner.learner}`, cap: caps.learner(), who: "this learner" }] : []),
    ...(owner.key ? [{ name: `${lane}:key:${owner.key}`, cap: caps.key(), who: "this key" }] : []),
    { name: `${lane}:instance`, cap: caps.instance(), who: "this server" },
  ];
}

/**
 * Takes a slot of `lane` for `owner`, or throws 429 RATE_LIMITED. The answer gives it back: call
 * it once the work has ended (a second call does nothing).
 */
export function takeSlot(lane: Lane, owner: Owner): () => void {
  const slots = slotsOf(lane, owner);
  const full = slots.find((s) => count(s.name) >= s.cap);
  if (full) {
    const retryAfterSeconds = BUSY_RETRY_AFTER_SECONDS[lane];
    throw new AppError(
      "RATE_LIMITED",
      `${full.who} already has ${full.cap} activity call(s) running; retry after ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  for (const s of slots) held.set(s.name, count(s.name) + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    for (const s of slots) {
      const n = count(s.name) - 1;
      if (n > 0) held.set(s.name, n);
      else held.delete(s.name);
    }
  };
}

/** Slots held now in `lane` (all owners): for tests and metrics. */
export function slotsHeld(lane: Lane): number {
  return count(`${lane}:instance`);
}

/** Whose share an export is: the person asking, or the service key. */
export type ExportTenant = { person: string } | { key: string };

/** Each tenant's open downloads, as the times (ms) by which each has ended at the latest. */
const openExports = new Map<string, number[]>();
const exportTurns = new FairTurns(() => setting("EXPORTS_PER_INSTANCE"));

const tenantName = (t: ExportTenant) => ("key" in t ? `key:${t.key}` : `person:${t.person}`);

export type OpenExport = {
  /** Runs one page's reading in a turn of this tenant's (waiting for it if need be). */
  turn: <T>(work: () => Promise<T>) => Promise<T>;
  /** The time (ms since the epoch) by which the download must have ended. */
  deadline: number;
  /** Gives the download's place back (a second call does nothing). */
  close: () => void;
};

/**
 * Opens a download for `tenant`, or throws 429 RATE_LIMITED when it already has its cap open. The
 * refusal's `retryAfterSeconds` is a bound the server keeps: by then its earliest open download has
 * ended, since every download is cut at its deadline (EXPORT_MAX_SECONDS after it opened).
 */
export function openExport(tenant: ExportTenant, nowMs = Date.now()): OpenExport {
  const name = tenantName(tenant);
  const cap = "key" in tenant ? setting("EXPORTS_PER_KEY") : setting("EXPORTS_PER_LEARNER");
  const deadlines = openExports.get(name) ?? [];
  if (deadlines.length >= cap) {
    const retryAfterSeconds = Math.max(1, Math.ceil((Math.min(...deadlines) - nowMs) / 1000));
    throw new AppError(
      "RATE_LIMITED",
      `${"key" in tenant ? "this key" : "this person"} already has ${cap} export(s) open; one ends within ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  const deadline = nowMs + setting("EXPORT_MAX_SECONDS") * 1000;
  openExports.set(name, [...deadlines, deadline]);
  let closed = false;
  return {
    deadline,
    turn: (work) => exportTurns.run(name, work),
    close: () => {
      if (closed) return;
      closed = true;
      const left = [...(openExports.get(name) ?? [])];
      const at = left.indexOf(deadline);
      if (at >= 0) left.splice(at, 1);
      if (left.length) openExports.set(name, left);
      else openExports.delete(name);
    },
  };
}

/** Downloads open now (all tenants), and the page-reading turns in use and waited for. */
export function exportsNow() {
  let open = 0;
  for (const d of openExports.values()) open += d.length;
  return { open, ...exportTurns.stats() };
}
