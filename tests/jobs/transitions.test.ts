import { beforeAll, describe, expect, it } from "vitest";
import { createLearner, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { fingerprint, jobIn } from "../helpers/states";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { cancelJob } from "@/server/jobs/cancel";
import { rerunJob } from "@/server/jobs/rerun";
import { sweepJob } from "@/server/jobs/sweep";
import { getDb } from "@/server/db";
import { isAppError } from "@/server/errors";
import type { JobStatus } from "@/server/generated/prisma/enums";

type Rt = ReturnType<typeof runtime>;
type Outcome = { to: JobStatus; cancelRequested?: boolean } | { refused: string };

const STATES: JobStatus[] = ["pending", "locked", "running", "succeeded", "failed", "cancelled"];
const admin = { type: "admin" as const, id: "admin_1" };

async function appCode(fn: () => Promise<unknown>): Promise<string | null> {
  try {
    await fn();
    return null;
  } catch (e) {
    if (isAppError(e)) return e.code;
    throw e;
  }
}

/** Each action as a function returning the error code it was refused with, or null. */
const ACTIONS: Record<string, (jobId: string, rt: Rt, learner: Learner) => Promise<string | null>> = {
  lock: async (id) => {
    const other = runtime(await runtimeKey(), uid("rt-other"));
    const res = await other.lock(id);
    return res.status === 200 ? null : res.body.error.code;
  },
  claim: async (id) => {
    const other = runtime(await runtimeKey(), uid("rt-other"));
    // Claim until the queue is empty or this job is taken; other tests' leftovers may come first.
    for (let i = 0; i < 100; i++) {
      const res = await other.poll({ claim: true, limit: 50 });
      const ids = res.body.jobs.map((j: { job: { id: string } }) => j.job.id);
      if (ids.includes(id)) return null;
      if (ids.length === 0) return "NOT_CLAIMED";
    }
    return "NOT_CLAIMED";
  },
  heartbeat: async (id, rt) => {
    const res = await rt.heartbeat(id, 1);
    return res.status === 200 ? null : res.body.error.code;
  },
  result: async (id, rt, learner) => {
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    output.weakPoints![0]!.suggestedReview = "a different output";
    const res = await rt.result(id, 1, output);
    return res.status === 200 ? null : res.body.error.code;
  },
  fail: async (id, rt) => {
    const res = await rt.fail(id, 1, "INVALID_SNAPSHOT");
    return res.status === 200 ? null : res.body.error.code;
  },
  cancel: (id) => appCode(() => cancelJob(id, admin)),
  sweep: async (id) => {
    const { advanceClock } = await import("@/server/clock");
    advanceClock(10 * 60_000);
    try {
      const rows = await sweepJob(id);
      return rows.length ? null : "NOT_SWEPT";
    } finally {
      advanceClock(-10 * 60_000);
    }
  },
  rerun: (id) => appCode(() => rerunJob(id, admin)),
};

const held = (s: JobStatus) => s === "locked" || s === "running";
/**
 * A job this Runtime's key never held (pending, or cancelled while pending) answers as if it did not
 * exist: a key learns nothing of jobs it does not hold (docs/contract.md#the-runtime-protocol).
 */
const lostOrUnknown = (s: JobStatus) => (s === "pending" || s === "cancelled" ? "JOB_NOT_FOUND" : "LOCK_LOST");
/** The full table: what each action does from each state. Anything not listed as a `to` is a refusal. */
function expected(action: string, from: JobStatus): Outcome {
  switch (action) {
    case "lock":
      return from === "pending"
        ? { to: "locked" }
        : { refused: held(from) ? "JOB_ALREADY_LOCKED" : "JOB_NOT_LOCKABLE" };
    case "claim":
      return from === "pending" ? { to: "locked" } : { refused: "NOT_CLAIMED" };
    case "heartbeat":
      return held(from) ? { to: "running" } : { refused: lostOrUnknown(from) };
    case "result":
      return held(from)
        ? { to: "succeeded" }
        : { refused: from === "succeeded" ? "RESULT_ALREADY_EXISTS" : lostOrUnknown(from) };
    case "fail":
      return held(from) ? { to: "failed" } : { refused: lostOrUnknown(from) };
    case "cancel":
      if (from === "pending") return { to: "cancelled" };
      return held(from) ? { to: from, cancelRequested: true } : { refused: "JOB_NOT_CANCELLABLE" };
    case "sweep":
      return held(from) ? { to: "pending" } : { refused: "NOT_SWEPT" };
    case "rerun":
      return from === "failed" || from === "cancelled" ? { to: from } : { refused: "JOB_NOT_RERUNNABLE" };
  }
  throw new Error(action);
}

describe("the state machine, every (state, action) pair", () => {
  let learner: Learner;
  let key: string;
  beforeAll(async () => {
    learner = await createLearner();
    key = await runtimeKey();
  });

  for (const from of STATES) {
    for (const action of Object.keys(ACTIONS)) {
      const outcome = expected(action, from);
      const title =
        "refused" in outcome
          ? `${action} from ${from} is refused (${outcome.refused}) and changes nothing`
          : `${action}: ${from} → ${outcome.to}`;
      it(title, async () => {
        const rt = runtime(key, uid("rt"));
        const job = await jobIn(from, learner, rt);
        const before = await fingerprint(job.id);
        const code = await ACTIONS[action]!(job.id, rt, learner);
        const after = await fingerprint(job.id);
        if ("refused" in outcome) {
          expect(code).toBe(outcome.refused);
          expect(after).toEqual(before);
          return;
        }
        expect(code).toBeNull();
        expect(after.status).toBe(outcome.to);
        if (outcome.cancelRequested) expect(after.cancelRequested).toBe(true);
        const row = await jobRow(job.id);
        if (after.status !== before.status) {
          // The status change left its event(s), the last one ending in the new status.
          expect(row.events.length).toBeGreaterThan(before.events);
          expect(row.events.at(-1)!.toStatus).toBe(outcome.to);
        }
        if (action === "rerun") {
          expect(after).toEqual(before); // the old job is untouched
          const rerun = await getDb().aiRuntimeJob.findFirstOrThrow({ where: { retriedFromJobId: job.id } });
          expect(rerun.status).toBe("pending");
        }
        if (action === "sweep") {
          expect(row.events.slice(-2).map((e) => [e.fromStatus, e.toStatus])).toEqual([
            [from, "expired"],
            ["expired", "pending"],
          ]);
          expect(after.retryCount).toBe(before.retryCount + 1);
          expect(row.errorCode).toBe("JOB_TIMEOUT");
        }
      });
    }
  }
});
