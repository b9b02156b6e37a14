import { outputSchemas, paramsSchemas, type JobTypeName, type OutputSchemaVersion } from "./schemas";

export type QualityContext = { knowledgePointIds: ReadonlySet<string>; params: unknown };
/** One broken rule: where in the output (dot path, "" for the whole output), which rule, in words. */
export type Violation = { path: string; rule: string; message: string };
export type OutputCheck = { ok: true; output: unknown } | { ok: false; findings: string[]; violations: Violation[] };

/** The rule names a rejection can carry (zod's issue codes appear as `schema.<code>`). */
export const QUALITY_RULES = [
  "unknown_schema_version",
  "knowledge_point_unknown",
  "target_id_required",
  "count_mismatch",
  "duplicate_stem",
  "question_type_not_requested",
  "difficulty_mismatch",
  "too_few_options",
  "options_repeat",
  "one_correct_option",
  "duplicate_front",
] as const;

function rejected(violations: Violation[]): OutputCheck {
  return { ok: false, violations, findings: violations.map((v) => `${v.path || "output"}: ${v.message}`) };
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values.map(norm)) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

/**
 * Shape (zod, per schema version) and then SPEC §2's quality rules: single-choice questions have
 * exactly one correct option among at least two, no duplicate stems or card fronts, every
 * knowledgePointId exists in the snapshot, generated counts match the request.
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
  const add = (path: string, rule: (typeof QUALITY_RULES)[number], message: string) =>
    found.push({ path, rule, message });
  const kp = (where: string, id: string | null | undefined) => {
    if (id && !ctx.knowledgePointIds.has(id))
      add(`${where}.knowledgePointId`, "knowledge_point_unknown", `knowledgePointId ${id} is not in the snapshot`);
  };
  const value = parsed.data as Record<string, unknown>;
  switch (jobType) {
    case "learning_state_analysis": {
      const v = schemas.learning_state_analysis.parse(value);
      v.knowledgePoints.forEach((k, i) => kp(`knowledgePoints.${i}`, k.knowledgePointId));
      break;
    }
    case "weak_point_analysis": {
      const v = schemas.weak_point_analysis.parse(value);
      v.weakPoints.forEach((w, i) => kp(`weakPoints.${i}`, w.knowledgePointId));
      break;
    }
    case "next_action_planning": {
      const v = schemas.next_action_planning.parse(value);
      v.actions.forEach((a, i) => {
        if (a.target.type === "knowledge_point" && a.target.id && !ctx.knowledgePointIds.has(a.target.id))
          add(
            `actions.${i}.target.id`,
            "knowledge_point_unknown",
            `knowledgePointId ${a.target.id} is not in the snapshot`,
          );
        if (a.target.type !== "none" && !a.target.id)
          add(`actions.${i}.target`, "target_id_required", "id is required");
      });
      break;
    }
    case "quiz_generation": {
      const v = schemas.quiz_generation.parse(value);
      const params = paramsSchemas.quiz_generation.parse(ctx.params ?? {});
      if (v.questions.length !== params.count)
        add("questions", "count_mismatch", `${v.questions.length} generated, ${params.count} requested`);
      for (const d of duplicates(v.questions.map((q) => q.stem))) {
        const at = v.questions.map((q) => norm(q.stem)).lastIndexOf(d);
        add(`questions.${at}.stem`, "duplicate_stem", `duplicate stem "${d}"`);
      }
      v.questions.forEach((q, i) => {
        kp(`questions.${i}`, q.knowledgePointId);
        if (!params.questionTypes.includes(q.type))
          add(`questions.${i}.type`, "question_type_not_requested", `type ${q.type} was not requested`);
        if (params.difficulty !== "mixed" && q.difficulty !== params.difficulty)
          add(
            `questions.${i}.difficulty`,
            "difficulty_mismatch",
            `difficulty ${q.difficulty}, ${params.difficulty} requested`,
          );
        if (q.type === "short_answer") return;
        const options = q.options.map(norm);
        if (options.length < 2)
          add(`questions.${i}.options`, "too_few_options", "a choice question needs at least two options");
        if (new Set(options).size !== options.length) add(`questions.${i}.options`, "options_repeat", "options repeat");
        const correct = options.filter((o) => o === norm(q.answer)).length;
        if (correct !== 1)
          add(
            `questions.${i}.answer`,
            "one_correct_option",
            `exactly one option must be the answer (found ${correct})`,
          );
      });
      break;
    }
    case "flashcard_generation": {
      const v = schemas.flashcard_generation.parse(value);
      const params = paramsSchemas.flashcard_generation.parse(ctx.params ?? {});
      if (v.flashcards.length !== params.count)
        add("flashcards", "count_mismatch", `${v.flashcards.length} generated, ${params.count} requested`);
      for (const d of duplicates(v.flashcards.map((c) => c.front))) {
        const at = v.flashcards.map((c) => norm(c.front)).lastIndexOf(d);
        add(`flashcards.${at}.front`, "duplicate_front", `duplicate front "${d}"`);
      }
      v.flashcards.forEach((c, i) => kp(`flashcards.${i}`, c.knowledgePointId));
      break;
    }
  }
  return found.length ? rejected(found) : { ok: true, output: parsed.data };
}
