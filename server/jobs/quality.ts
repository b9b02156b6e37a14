import { outputSchemas, paramsSchemas, type JobTypeName, type OutputSchemaVersion } from "./schemas";

export type QualityContext = { knowledgePointIds: ReadonlySet<string>; params: unknown };
export type OutputCheck = { ok: true; output: unknown } | { ok: false; findings: string[] };

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
export function checkOutput(
  jobType: JobTypeName,
  version: string,
  output: unknown,
  ctx: QualityContext,
): OutputCheck {
  // Own keys only: "toString" or "constructor" would otherwise find Object.prototype's members.
  const schemas = Object.hasOwn(outputSchemas, version) ? outputSchemas[version as OutputSchemaVersion] : undefined;
  if (!schemas) return { ok: false, findings: [`unknown outputSchemaVersion "${version}"`] };
  const parsed = schemas[jobType].safeParse(output);
  if (!parsed.success) {
    return {
      ok: false,
      findings: parsed.error.issues.slice(0, 20).map((i) => `${i.path.join(".") || "output"}: ${i.message}`),
    };
  }
  const findings: string[] = [];
  const kp = (where: string, id: string | null | undefined) => {
    if (id && !ctx.knowledgePointIds.has(id)) findings.push(`${where}: knowledgePointId ${id} is not in the snapshot`);
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
        if (a.target.type === "knowledge_point") kp(`actions.${i}.target`, a.target.id);
        if (a.target.type !== "none" && !a.target.id) findings.push(`actions.${i}.target: id is required`);
      });
      break;
    }
    case "quiz_generation": {
      const v = schemas.quiz_generation.parse(value);
      const params = paramsSchemas.quiz_generation.parse(ctx.params ?? {});
      if (v.questions.length !== params.count)
        findings.push(`questions: ${v.questions.length} generated, ${params.count} requested`);
      for (const d of duplicates(v.questions.map((q) => q.stem))) findings.push(`questions: duplicate stem "${d}"`);
      v.questions.forEach((q, i) => {
        kp(`questions.${i}`, q.knowledgePointId);
        if (!params.questionTypes.includes(q.type)) findings.push(`questions.${i}: type ${q.type} was not requested`);
        if (params.difficulty !== "mixed" && q.difficulty !== params.difficulty)
          findings.push(`questions.${i}: difficulty ${q.difficulty}, ${params.difficulty} requested`);
        if (q.type === "short_answer") return;
        const options = q.options.map(norm);
        if (options.length < 2) findings.push(`questions.${i}: a choice question needs at least two options`);
        if (new Set(options).size !== options.length) findings.push(`questions.${i}: options repeat`);
        const correct = options.filter((o) => o === norm(q.answer)).length;
        if (correct !== 1) findings.push(`questions.${i}: exactly one option must be the answer (found ${correct})`);
      });
      break;
    }
    case "flashcard_generation": {
      const v = schemas.flashcard_generation.parse(value);
      const params = paramsSchemas.flashcard_generation.parse(ctx.params ?? {});
      if (v.flashcards.length !== params.count)
        findings.push(`flashcards: ${v.flashcards.length} generated, ${params.count} requested`);
      for (const d of duplicates(v.flashcards.map((c) => c.front))) findings.push(`flashcards: duplicate front "${d}"`);
      v.flashcards.forEach((c, i) => kp(`flashcards.${i}`, c.knowledgePointId));
      break;
    }
  }
  return findings.length ? { ok: false, findings } : { ok: true, output: parsed.data };
}
