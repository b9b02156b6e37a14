import { JOB_TYPES, jobTypeOf, OUTPUT_SCHEMA_VERSION, targetTypesOf, type JobTypeName } from "../../server/job-types";
import type { SnapshotContent } from "../../server/job-types/fields";
import { evidenceFindings } from "../../server/job-types/evidence";
import { checkOutput } from "../../server/jobs/quality";
import { isJobFailure } from "../../server/pipeline/errors";
import type { Learner } from "./learners";

/** Params every type is evaluated with (its defaults; the plan with an hour). */
const PARAMS: Partial<Record<JobTypeName, Record<string, unknown>>> = {
  next_action_planning: { timeBudgetMinutes: 60 },
};

export type Tally = {
  learners: number;
  /** type → outputs checked, and analyses that declined (a JobFailure, e.g. nothing to write cards about). */
  runs: Record<string, { checked: number; declined: number }>;
  /** type → rule → violations. */
  violations: Record<string, Record<string, number>>;
  /** A few examples per type and rule, for the reader. */
  examples: Record<string, string[]>;
};

/**
 * Every type's offline analyzer on every learner, then the API's rules, the type's quality checks and the
 * evidence rules (as the quality stage runs them): violations counted per type and rule.
 */
export function evaluate(list: Learner[], types: readonly JobTypeName[] = JOB_TYPES): Tally {
  const tally: Tally = { learners: list.length, runs: {}, violations: {}, examples: {} };
  const count = (type: string, rule: string, example: string) => {
    const t = (tally.violations[type] ??= {});
    t[rule] = (t[rule] ?? 0) + 1;
    const ex = (tally.examples[`${type}.${rule}`] ??= []);
    if (ex.length < 3) ex.push(example);
  };
  for (const l of list) {
    for (const type of types) {
      const def = jobTypeOf(type);
      const run = (tally.runs[type] ??= { checked: 0, declined: 0 });
      const params = def.params.parse(PARAMS[type] ?? {}) as Record<string, unknown>;
      // A type that runs on materials only (knowledge point extraction) reads the learner's material.
      const material = l.snapshot.materials[0];
      const snapshot: SnapshotContent = targetTypesOf(type).includes("user")
        ? l.snapshot
        : {
            ...l.snapshot,
            target: material ? { type: "material", id: material.id, title: material.title } : l.snapshot.target,
          };
      let output: unknown;
      try {
        output = def.analyse(snapshot, params, l.asOf, l.locale);
      } catch (e) {
        if (!isJobFailure(e)) throw e;
        run.declined++;
        continue;
      }
      run.checked++;
      const hard = checkOutput(type, OUTPUT_SCHEMA_VERSION, output, {
        knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)),
        snapshot,
        params,
      });
      if (!hard.ok) {
        for (const v of hard.violations)
          count(type, `api.${v.rule}`, `${l.id} (${l.profile}, ${l.locale}): ${v.path}: ${v.message}`);
        continue;
      }
      for (const f of def.qualityChecks(hard.output, { snapshot, params, locale: l.locale }))
        count(type, "quality_checks", `${l.id} (${l.profile}, ${l.locale}): ${f}`);
      for (const f of evidenceFindings(type, hard.output, {
        snapshot,
        params,
        locale: l.locale,
        version: OUTPUT_SCHEMA_VERSION,
      }))
        count(type, f.rule, `${l.id} (${l.profile}, ${l.locale}): ${f.path}: ${f.message}`);
    }
  }
  return tally;
}

export const totalViolations = (t: Tally, type: string) =>
  Object.values(t.violations[type] ?? {}).reduce((n, x) => n + x, 0);
