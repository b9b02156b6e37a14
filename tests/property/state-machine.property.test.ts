import fc from "fast-check";
import { afterEach, describe, it } from "vitest";
import { resetClock } from "@/server/clock";
import { action, run } from "./run-actions";

describe("property: random interleavings keep the job engine's invariants", () => {
  afterEach(() => resetClock());

  it("holds for random sequences of create, lock, claim, heartbeat, result, fail, cancel, consent, re-run, sweep and clock moves", async () => {
    // Against the real database; a failure is shrunk to a short sequence, which then belongs in regressions.test.ts.
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 35 }), run), {
      numRuns: Number(process.env.PROPERTY_RUNS ?? 25),
    });
  }, 900_000);
});
