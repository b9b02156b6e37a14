import { drainSignal } from "../lifecycle";
import { getDb } from "../db";
import { getJobFeed, type JobChange, type JobFeed } from "./job-feed";
import { notePending } from "../jobs/job-partition";

/**
 * Long poll (docs/contract.md#the-runtime-protocol `waitMs`): Runtimes waiting for work park here, and the process's one LISTEN
 * connection (JobFeed) wakes them. A job that becomes visible wakes ONE claiming waiter of its
 * type (FIFO) and every non-claiming poller of that type, so a new job costs one claim query, not
 * one per idle Runtime. A woken waiter that ends up not using its wake passes it on. Jobs that
 * become visible later (a retry's runAfter) wake waiters from a timer; the timers are learnt from
 * the NOTIFY payload and, on every (re)connect, from one query per process.
 */
export type WaitOutcome = "woken" | "timeout" | "drained" | "aborted";

type Waiter = { types: ReadonlySet<string>; claim: boolean; done: (why: WaitOutcome, type?: string) => void };

/** Without a live LISTEN connection nothing would wake a waiter: it re-checks this often instead. */
const UNLISTENED_RECHECK_MS = 1000;
/** runAfter timers kept per process; beyond this the (re)connect scan and the recheck cover the rest. */
const MAX_TIMERS = 10_000;

export class JobWaiters {
  /** Insertion order is arrival order: the longest-waiting Runtime is woken first. */
  private readonly waiters = new Set<Waiter>();
  private draining = false;
  private due: { at: number; type: string }[] = [];
  private dueTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly feed: Pick<JobFeed, "on" | "connected">,
    private readonly scanDue?: () => Promise<{ type: string; at: number }[]>,
  ) {
    feed.on("change", (c: JobChange) => this.onChange(c));
    // After a gap notifications may have been missed: every waiter looks again.
    feed.on("connected", () => {
      this.wakeAll();
      void this.loadDue();
    });
    if (feed.connected) void this.loadDue();
  }

  get size() {
    return this.waiters.size;
  }

  /**
   * Registers a waiter before the caller queries, so a job committed between the query and the wait
   * still wakes it. Call wait() after an empty query; always call cancel() when done.
   */
  register(types: readonly string[], claim: boolean) {
    let outcome: WaitOutcome | null = this.draining ? "drained" : null;
    let wokenFor: string | undefined;
    let resolve: ((why: WaitOutcome) => void) | null = null;
    const waiter: Waiter = {
      types: new Set(types),
      claim,
      done: (why, type) => {
        this.waiters.delete(waiter);
        if (outcome) return;
        outcome = why;
        wokenFor = type;
        resolve?.(why);
      },
    };
    if (!outcome) this.waiters.add(waiter);
    return {
      wait: (ms: number, signal?: AbortSignal): Promise<WaitOutcome> => {
        if (outcome) return Promise.resolve(outcome);
        if (signal?.aborted) return Promise.resolve("aborted");
        return new Promise<WaitOutcome>((res) => {
          const listening = this.feed.connected;
          const timer = setTimeout(
            () => waiter.done(listening ? "timeout" : "woken"),
            listening ? ms : Math.min(ms, UNLISTENED_RECHECK_MS),
          );
          const onAbort = () => waiter.done("aborted");
          signal?.addEventListener("abort", onAbort, { once: true });
          resolve = (why) => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            res(why);
          };
        });
      },
      /**
       * Leaves the queue. A wake received by a caller that will not query again (it found jobs
       * already, or its time ran out) goes to the next waiter in line, so no visible job is left
       * without a Runtime looking for it.
       */
      cancel: (willQueryAgain: boolean) => {
        const unused = outcome === "woken" && wokenFor && !willQueryAgain ? wokenFor : undefined;
        waiter.done("aborted");
        if (unused) this.wakeOne(unused);
      },
    };
  }

  /** Shutdown: every waiter answers now (with no jobs), and new long polls do not wait. */
  drain() {
    this.draining = true;
    for (const w of [...this.waiters]) w.done("drained");
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
  }

  /** Undo drain() (tests; a server that stays up after all). */
  resume() {
    this.draining = false;
    this.armDueTimer();
  }

  private onChange(c: JobChange) {
    if (c.status !== "pending" || c.cancelRequested) return;
    notePending(c.id);
    const at = c.runAfter ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(c.runAfter) ? c.runAfter : `${c.runAfter}Z`) : NaN;
    if (Number.isFinite(at) && at > Date.now()) return this.addDue([{ type: c.jobType, at }]);
    this.wakeOne(c.jobType);
  }

  /** One claiming waiter of this type, plus every plain poller of it (they take nothing). */
  wakeOne(type: string) {
    let claimerWoken = false;
    for (const w of [...this.waiters]) {
      if (!w.types.has(type)) continue;
      if (w.claim) {
        if (claimerWoken) continue;
        claimerWoken = true;
      }
      w.done("woken", type);
    }
  }

  private wakeAll() {
    for (const w of [...this.waiters]) w.done("woken", [...w.types][0]);
  }

  private async loadDue() {
    if (!this.scanDue) return;
    try {
      this.addDue(await this.scanDue());
    } catch (e) {
      console.error("[job-waiters] could not read upcoming retries:", (e as Error).message);
    }
  }

  private addDue(items: { type: string; at: number }[]) {
    this.due.push(...items);
    this.due.sort((x, y) => x.at - y.at);
    if (this.due.length > MAX_TIMERS) this.due.length = MAX_TIMERS;
    this.armDueTimer();
  }

  private armDueTimer() {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    const next = this.due[0];
    if (!next || this.draining) return;
    // +5 ms: the row's runAfter has millisecond precision; wake just after it is reached.
    this.dueTimer = setTimeout(
      () => {
        const t = Date.now();
        while (this.due[0] && this.due[0].at <= t) this.wakeOne(this.due.shift()!.type);
        this.armDueTimer();
        // The scan knows only the earliest retry per type: ask again for the next ones (one query per process).
        void this.loadDue();
      },
      Math.max(0, next.at - Date.now() + 5),
    );
    this.dueTimer.unref();
  }
}

/** The earliest upcoming runAfter per job type: the timers a freshly connected process needs. */
async function scanDue() {
  const rows = await getDb().$queryRaw<{ type: string; at: Date }[]>`
    SELECT j."jobType"::text AS type, min(j."runAfter") AS at FROM "JobQueue" q JOIN "AiRuntimeJob" j ON j.id = q."jobId"
    WHERE q.status = 'pending' AND j.status = 'pending' AND j."runAfter" > now() AND NOT j."cancelRequested" GROUP BY 1`;
  return rows.map((r) => ({ type: r.type, at: r.at.getTime() }));
}

const g = globalThis as unknown as { __jobWaiters?: JobWaiters };

/** The process's waiters, on the process's one JobFeed. */
export function getJobWaiters(): JobWaiters {
  if (!g.__jobWaiters) {
    const waiters = new JobWaiters(getJobFeed(), scanDue);
    g.__jobWaiters = waiters;
    // A draining server (SIGTERM) answers every held long poll at once and holds no new ones.
    const drain = drainSignal();
    if (drain.aborted) waiters.drain();
    else drain.addEventListener("abort", () => waiters.drain(), { once: true });
  }
  return g.__jobWaiters;
}

/** For graceful shutdown: answer every held long poll now, and hold no new ones. */
export function drainWaiters() {
  getJobWaiters().drain();
}
