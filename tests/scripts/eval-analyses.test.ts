import { describe, expect, it } from "vitest";
import { learners, PROFILES } from "@/scripts/eval/learners";
import { evaluate, totalViolations } from "@/scripts/eval/run";
import { JOB_TYPES } from "@/server/job-types";

/** A small run of `npm run eval:analyses` (the full size is recorded in bench-results/). */
describe("the analyses' evaluation corpus", () => {
  it("is seeded: the same seed gives the same learners, another seed others", () => {
    expect(learners(12, 3)).toEqual(learners(12, 3));
    expect(learners(12, 3)).not.toEqual(learners(12, 4));
    const list = learners(24, 1);
    expect(new Set(list.map((l) => l.profile))).toEqual(new Set(PROFILES));
    expect(new Set(list.map((l) => l.locale))).toEqual(new Set(["en", "zh-CN"]));
  });

  it("finds no violation in learning state, weak points and next steps on 48 learners of every profile in both languages", () => {
    const types = ["learning_state_analysis", "weak_point_analysis", "next_action_planning"] as const;
    const tally = evaluate(learners(48, 11), types);
    for (const t of types) {
      expect(tally.runs[t]!.checked).toBe(48);
      expect(totalViolations(tally, t), JSON.stringify(tally.examples, null, 1)).toBe(0);
    }
  });

  it("finds no violation in any job type's output (quizzes, cards, extracted points too) on 48 learners", () => {
    const tally = evaluate(learners(48, 11));
    for (const t of JOB_TYPES) {
      const run = tally.runs[t]!;
      // Every learner is either checked or declined (no input to work on), and most are checked.
      expect(run.checked + run.declined, t).toBe(48);
      expect(run.checked, t).toBeGreaterThan(40);
      expect(totalViolations(tally, t), `${t}: ${JSON.stringify(tally.examples, null, 1)}`).toBe(0);
    }
  });
});
