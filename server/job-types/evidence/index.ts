import type { Locale } from "../../i18n/locales";
import type { SnapshotContent } from "../fields";
import { claimFindings } from "./claims";
import { evidenceOf, type EvidenceRules, type Finding } from "./finding";
import { flashcardRules, quizRules } from "./items";
import { learningStateRules } from "./learning-state";
import { nextActionRules } from "./next-actions";
import { weakPointRules } from "./weak-points";

export type { Finding } from "./finding";

/**
 * The evidence rules of the quality stage, per job type: what can be computed from the snapshot,
 * checked against the output (docs/evidence-rules.md has each rule with why and its test). They
 * apply to every output whoever made it — the offline analyzer, DeepSeek, any Runtime through the
 * API — after the schema and the API's rules pass. In the pipeline a finding goes back to the
 * model in the next quality loop and, past the last loop, the result is submitted degraded; the
 * API marks a submitted result that breaks one degraded.
 */
export const EVIDENCE_RULES = {
  learning_state_analysis: learningStateRules,
  weak_point_analysis: weakPointRules,
  next_action_planning: nextActionRules,
  quiz_generation: quizRules,
  flashcard_generation: flashcardRules,
  knowledge_point_extraction: { rules: {}, check: () => [] },
} as const satisfies Record<string, EvidenceRules<never>>;

export type EvidenceType = keyof typeof EVIDENCE_RULES;

/** The evidence rules an output of this type (parsed, of schema `version`) breaks. */
export function evidenceFindings(
  jobType: EvidenceType,
  output: unknown,
  ctx: { snapshot: SnapshotContent; params?: Record<string, unknown>; locale?: Locale; version: string },
): Finding[] {
  const rules = EVIDENCE_RULES[jobType] as EvidenceRules<unknown>;
  const evidence = evidenceOf(ctx.snapshot);
  const params = ctx.params ?? {};
  return [
    ...rules.check(
      output,
      { snapshot: ctx.snapshot, params, locale: ctx.locale ?? "en", version: ctx.version },
      evidence,
    ),
    // The claims in its sentences (docs/evidence-rules.md, "Claims").
    ...claimFindings(jobType, output, { snapshot: ctx.snapshot, params }, evidence),
  ];
}

/** A finding as the model and the console read it. */
export const findingText = (f: Finding) => `${f.path || "output"}: ${f.message} [${f.rule}]`;
