import {
  flashcardsSchema,
  learningAnalysisSchema,
  nextActionsSchema,
  quizSchema,
  weakPointsSchema,
  type JobTypeName,
  type SnapshotContent,
} from "../jobs/schemas";

export type Review = { ok: true } | { ok: false; findings: string[] };
/** A quality rule the pipeline applies on top of the API's (which checkOutput enforces). */
export type Reviewer = (input: {
  jobType: JobTypeName;
  output: unknown;
  snapshot: SnapshotContent;
  params: Record<string, unknown>;
  attempt: number;
}) => Review | Promise<Review>;

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * The pipeline's own quality bar, stricter than the API's acceptance rules. An output that
 * misses only these is still acceptable to the API: after the last quality loop it is
 * submitted marked degraded instead of failing the job.
 */
export const reviewOutput: Reviewer = ({ jobType, output, snapshot, params }) => {
  const findings: string[] = [];
  switch (jobType) {
    case "learning_state_analysis": {
      const v = learningAnalysisSchema.parse(output);
      const seen = new Map<string, number>();
      for (const k of v.knowledgePoints) seen.set(k.knowledgePointId, (seen.get(k.knowledgePointId) ?? 0) + 1);
      for (const kp of snapshot.knowledgePoints) {
        const n = seen.get(kp.id) ?? 0;
        if (n !== 1) findings.push(`knowledgePoints: ${kp.id} ("${kp.title}") must appear exactly once, found ${n}`);
      }
      break;
    }
    case "weak_point_analysis": {
      const v = weakPointsSchema.parse(output);
      const ids = v.weakPoints.map((w) => w.knowledgePointId);
      if (new Set(ids).size !== ids.length) findings.push("weakPoints: a knowledge point is listed twice");
      break;
    }
    case "next_action_planning": {
      const v = nextActionsSchema.parse(output);
      const total = v.actions.reduce((s, a) => s + a.estimatedMinutes, 0);
      const budget = Number(params.timeBudgetMinutes);
      if (total > budget) findings.push(`actions: ${total} minutes planned, the budget is ${budget}`);
      break;
    }
    case "quiz_generation": {
      const v = quizSchema.parse(output);
      v.questions.forEach((q, i) => {
        if (q.type === "true_false") {
          const options = q.options.map(norm).sort();
          if (options.join("|") !== "false|true")
            findings.push(`questions.${i}: a true/false question has the options True and False`);
        }
        if (q.type === "short_answer" && q.options.length)
          findings.push(`questions.${i}: a short-answer question has no options`);
      });
      break;
    }
    case "flashcard_generation": {
      const v = flashcardsSchema.parse(output);
      v.flashcards.forEach((c, i) => {
        if (norm(c.front) === norm(c.back)) findings.push(`flashcards.${i}: the back repeats the front`);
      });
      break;
    }
  }
  return findings.length ? { ok: false, findings } : { ok: true };
};
