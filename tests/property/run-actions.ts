import fc from "fast-check";
import { expect } from "vitest";
import { createLearner, runtimeKey, uid, type Learner } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { targetTypesOf } from "@/server/job-types";
import { fingerprint } from "../helpers/states";
import { checkInvariants } from "./invariants";
import { advanceClock, resetClock } from "@/server/clock";
import { createJob } from "@/server/jobs/create";
import { cancelJob } from "@/server/jobs/cancel";
import { setConsent } from "@/server/jobs/consent";
import { rerunJob } from "@/server/jobs/rerun";
import { sweepExpiredLeases } from "@/server/jobs/sweep";
import { isAppError } from "@/server/errors";
import { FAILURE_CODES, JOB_TYPES } from "@/server/jobs/constants";
import type { JobStatus, JobType } from "@/server/generated/prisma/enums";

type Rt = ReturnType<typeof runtime>;
export type Action =
  | { kind: "create"; user: number; jobType: JobType; keyed: boolean }
  | { kind: "lock"; rt: number; job: number }
  | { kind: "claim"; rt: number; limit: number }
  | { kind: "heartbeat"; rt: number; job: number; stale: boolean }
  | { kind: "result"; rt: number; job: number; stale: boolean; valid: boolean }
  | { kind: "fail"; rt: number; job: number; stale: boolean; code: string }
  | { kind: "cancel"; job: number }
  | { kind: "consent"; user: number; granted: boolean }
  | { kind: "rerun"; job: number }
  | { kind: "sweep" }
  | { kind: "clock"; seconds: number };

const idx = fc.nat({ max: 7 });
export const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("create" as const),
      user: fc.nat({ max: 1 }),
      jobType: fc.constantFrom(...JOB_TYPES),
      keyed: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("lock" as const), rt: fc.nat({ max: 2 }), job: idx }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("claim" as const),
      rt: fc.nat({ max: 2 }),
      limit: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("heartbeat" as const),
      rt: fc.nat({ max: 2 }),
      job: idx,
      stale: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("result" as const),
      rt: fc.nat({ max: 2 }),
      job: idx,
      stale: fc.boolean(),
      valid: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("fail" as const),
      rt: fc.nat({ max: 2 }),
      job: idx,
      stale: fc.boolean(),
      code: fc.constantFrom(
        "MODEL_TIMEOUT",
        "NETWORK_ERROR",
        "INVALID_SCHEMA",
        "CANCELLED",
        "BOGUS",
        "toString",
        "__proto__",
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), job: idx }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("consent" as const), user: fc.nat({ max: 1 }), granted: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rerun" as const), job: idx }) },
  { weight: 1, arbitrary: fc.constant({ kind: "sweep" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("clock" as const), seconds: fc.integer({ min: 1, max: 150 }) }),
  },
);

/** One run: executes the actions through the real services and routes, checking invariants after each. */
export async function run(actions: Action[]) {
  resetClock();
  const learners: Learner[] = [await createLearner(), await createLearner()];
  const key = await runtimeKey();
  const rts: Rt[] = [0, 1, 2].map((i) => runtime(key, uid(`prop${i}`)));
  const jobs: string[] = [];
  /** What each Runtime believes it holds: job → attempt number from its lock or claim. */
  const held: Map<string, number>[] = rts.map(() => new Map());
  const terminal = new Map<string, JobStatus>();
  const pick = (i: number) => (jobs.length ? jobs[i % jobs.length]! : null);

  const expectNoServerError = (status: number, what: string) => expect(status, what).toBeLessThan(500);
  const domain = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      if (!isAppError(e)) throw e;
    }
  };

  for (const a of actions) {
    switch (a.kind) {
      case "create":
        await domain(async () => {
          const l = learners[a.user]!;
          const out = await createJob({
            userId: l.user.id,
            jobType: a.jobType,
            target: targetTypesOf(a.jobType).includes("user")
              ? { type: "user", id: l.user.id }
              : { type: "material", id: l.material.id },
            idempotencyKey: a.keyed ? uid("k") : null,
            maxRetryCount: 2,
            actor: { type: "learner", id: l.user.id },
          });
          if (!jobs.includes(out.job.id)) jobs.push(out.job.id);
        });
        break;
      case "lock": {
        const id = pick(a.job);
        if (!id) break;
        const res = await rts[a.rt]!.lock(id);
        expectNoServerError(res.status, "lock");
        if (res.status === 200) held[a.rt]!.set(id, res.body.job.attemptNo);
        break;
      }
      case "claim": {
        const res = await rts[a.rt]!.poll({ claim: true, limit: a.limit });
        expectNoServerError(res.status, "claim");
        for (const j of res.body.jobs) if (jobs.includes(j.job.id)) held[a.rt]!.set(j.job.id, j.job.attemptNo);
        break;
      }
      case "heartbeat":
      case "result":
      case "fail": {
        const id = pick(a.job);
        if (!id) break;
        const believed = held[a.rt]!.get(id);
        const attempt = a.stale || believed === undefined ? Math.max(1, (believed ?? 1) - 1) : believed;
        const before = await fingerprint(id);
        const rt = rts[a.rt]!;
        const res =
          a.kind === "heartbeat"
            ? await rt.heartbeat(id, attempt, { progress: 50 })
            : a.kind === "result"
              ? await rt.result(id, attempt, a.valid ? await outputFor(id, learners) : { nonsense: true })
              : await rt.fail(id, attempt, a.code);
        expectNoServerError(res.status, a.kind);
        // An unknown code (a prototype name included) is refused and changes nothing.
        if (a.kind === "fail" && !Object.hasOwn(FAILURE_CODES, a.code)) {
          expect(res.body.error?.code, `fail with ${a.code}`).toBe("UNKNOWN_ERROR_CODE");
          expect(await fingerprint(id)).toEqual(before);
        }
        // A stale attempt, or a lost lease, never changes anything.
        if (attempt !== before.attemptNo || (res.status === 409 && res.body.error.code === "LOCK_LOST")) {
          expect(res.status, `${a.kind} from attempt ${attempt} of ${before.attemptNo}`).not.toBe(200);
          expect(await fingerprint(id)).toEqual(before);
        }
        break;
      }
      case "cancel": {
        const id = pick(a.job);
        if (id) await domain(() => cancelJob(id, { type: "admin", id: "prop-admin" }));
        break;
      }
      case "consent": {
        const l = learners[a.user]!;
        await setConsent(l.user.id, a.granted, { type: "learner", id: l.user.id });
        break;
      }
      case "rerun": {
        const id = pick(a.job);
        if (id)
          await domain(async () => {
            const out = await rerunJob(id, { type: "admin", id: "prop-admin" });
            if (!jobs.includes(out.job.id)) jobs.push(out.job.id);
          });
        break;
      }
      case "sweep":
        await sweepExpiredLeases();
        break;
      case "clock":
        advanceClock(a.seconds * 1000);
        break;
    }
    await checkInvariants(jobs, terminal);
  }
}

/** A valid output for the job's type, referring to its owner's knowledge points (default params). */
async function outputFor(jobId: string, learners: Learner[]) {
  const { getDb } = await import("@/server/db");
  const job = await getDb().aiRuntimeJob.findUniqueOrThrow({
    where: { id: jobId },
    select: { jobType: true, userId: true },
  });
  const owner = learners.find((l) => l.user.id === job.userId)!;
  return validOutput(
    job.jobType,
    owner.knowledgePoints.map((k) => k.id),
    {},
  );
}
