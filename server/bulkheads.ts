import { setting } from "./config";
import { AppError } from "./errors";

/**
 * Caps on heavy work at once, per owner and per app process, so that no learner, key or client
 * can take what the others need (docs/security.md, "Bulkheads"). A lane's work takes a slot
 * before it touches the database and gives it back when it ends, however it ends; a slot it
 * cannot have is a 429 `RATE_LIMITED` with `retryAfterSeconds` (the doors add `Retry-After`),
 * never a wait. In memory: each process counts its own work.
 */
export type Lane = "export" | "ingest";

/** Who a piece of work counts against: a learner, a service key, both. */
export type Owner = { learner?: string; key?: string };

const CAPS = {
  export: {
    learner: () => setting("EXPORTS_PER_LEARNER"),
    key: () => setting("EXPORTS_PER_KEY"),
    instance: () => setting("EXPORTS_PER_INSTANCE"),
  },
  ingest: {
    learner: () => Infinity,
    key: () => setting("INGEST_PER_KEY"),
    instance: () => setting("INGEST_PER_INSTANCE"),
  },
} satisfies Record<Lane, Record<"learner" | "key" | "instance", () => number>>;

/** Seconds a refused caller is told to wait: about how long the work it waits behind takes. */
export const BUSY_RETRY_AFTER_SECONDS = { export: 10, ingest: 2 } as const;

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
      `${full.who} already has ${full.cap} ${lane === "export" ? "export(s)" : "activity call(s)"} running; retry after ${retryAfterSeconds} s`,
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

/** Runs `work` holding a slot of `lane` (see takeSlot). */
export async function withSlot<T>(lane: Lane, owner: Owner, work: () => Promise<T>): Promise<T> {
  const give = takeSlot(lane, owner);
  try {
    return await work();
  } finally {
    give();
  }
}

/** Slots held now in `lane` (all owners): for tests and metrics. */
export function slotsHeld(lane: Lane): number {
  return count(`${lane}:instance`);
}
