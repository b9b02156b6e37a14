import type { SnapshotContent } from "../job-types/fields";
import type { Violation } from "./violation";
import { jobTypeOf, outputSchemas, type JobTypeName, type OutputSchemaVersion } from "../job-types";

export type QualityContext = {
  knowledgePointIds: ReadonlySet<string>;
  params: unknown;
  /** The job's snapshot: the rules that read it (a passage grounded in the material) fail without it. */
  snapshot?: SnapshotContent | null;
};
export type { Violation } from "./violation";
export type OutputCheck = { ok: true; output: unknown } | { ok: false; findings: string[]; violations: Violation[] };

export { QUALITY_RULES } from "../job-types/catalogue";

function rejected(violations: Violation[]): OutputCheck {
  return { ok: false, violations, findings: violations.map((v) => `${v.path || "output"}: ${v.message}`) };
}

/**
 * Shape (zod, per schema version) and then the quality rules (docs/contract.md#job-types-and-outputs) of the job's type (its module
 * in server/job-types): e.g. single-choice questions have exactly one correct option among at
 * least two, no duplicate stems or card fronts, every knowledgePointId exists in the snapshot,
 * generated counts match the request.
 * The API runs this on every result; the reference Runtime runs it before submitting.
 */
export function checkOutput(jobType: JobTypeName, version: string, output: unknown, ctx: QualityContext): OutputCheck {
  // Own keys only: "toString" or "constructor" would otherwise find Object.prototype's members.
  const schemas = Object.hasOwn(outputSchemas, version) ? outputSchemas[version as OutputSchemaVersion] : undefined;
  if (!schemas)
    return rejected([
      { path: "", rule: "unknown_schema_version", message: `unknown outputSchemaVersion "${version}"` },
    ]);
  const parsed = schemas[jobType].safeParse(output);
  if (!parsed.success) {
    return rejected(
      parsed.error.issues
        .slice(0, 20)
        .map((i) => ({ path: i.path.map(String).join("."), rule: `schema.${i.code}`, message: i.message })),
    );
  }
  const found: Violation[] = [];
  const type = jobTypeOf(jobType);
  const add = (path: string, rule: string, message: string) => found.push({ path, rule, message });
  type.quality(parsed.data, {
    add,
    knowledgePoint: (where, id) => {
      if (id && !ctx.knowledgePointIds.has(id))
        add(`${where}.knowledgePointId`, "knowledge_point_unknown", `knowledgePointId ${id} is not in the snapshot`);
    },
    knowledgePointIds: ctx.knowledgePointIds,
    snapshot: ctx.snapshot ?? null,
    params: () => type.params.parse(ctx.params ?? {}),
  });
  return found.length ? rejected(found) : { ok: true, output: parsed.data };
}
