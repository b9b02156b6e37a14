import { afterEach, describe, it } from "vitest";
import { resetClock } from "@/server/clock";
import { run, type Action } from "./run-actions";

/**
 * Sequences the property test found when the engine (or a deliberately broken copy of it, to
 * prove the property bites) was wrong, replayed on every run.
 */
const REGRESSIONS: { name: string; actions: Action[] }[] = [
  {
    // Found with the sweep's retryCount increment removed: an expired lease must count as a retry.
    name: "claim, re-run, lease expiry and sweep, cancel, stale failure, re-claims",
    actions: [
      { kind: "create", user: 0, jobType: "next_action_planning", keyed: true },
      { kind: "claim", rt: 1, limit: 1 },
      { kind: "clock", seconds: 4 },
      { kind: "create", user: 0, jobType: "weak_point_analysis", keyed: false },
      { kind: "rerun", job: 1 },
      { kind: "lock", rt: 0, job: 4 },
      { kind: "clock", seconds: 144 },
      { kind: "sweep" },
      { kind: "create", user: 1, jobType: "weak_point_analysis", keyed: true },
      { kind: "cancel", job: 1 },
      { kind: "fail", rt: 2, job: 0, stale: true, code: "MODEL_TIMEOUT" },
      { kind: "heartbeat", rt: 0, job: 3, stale: false },
      { kind: "claim", rt: 1, limit: 3 },
      { kind: "claim", rt: 0, limit: 1 },
      { kind: "claim", rt: 1, limit: 2 },
      { kind: "heartbeat", rt: 1, job: 1, stale: true },
      { kind: "lock", rt: 1, job: 4 },
      { kind: "heartbeat", rt: 0, job: 4, stale: false },
    ],
  },
];

describe("property regressions", () => {
  afterEach(() => resetClock());
  for (const r of REGRESSIONS) it(r.name, () => run(r.actions), 120_000);
});
