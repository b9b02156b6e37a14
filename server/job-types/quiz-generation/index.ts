import type { Locale } from "../../i18n/locales";
import { defineJobType } from "../define";
import { duplicates, norm } from "../fields";
import { TEMPLATES } from "../shared/templates";
import { generateQuiz } from "./analyse";
import { pointPassage, supported } from "./model-answer";
import { gradingOf } from "./grading";
import { checkQuestion, QUESTION_RULES, type QuestionRule } from "../shared/checklist";
import { conceptOf } from "../shared/items";
import { quizGenerationEntry } from "./schema";

/** The checklist's rules a model's question goes round the quality loop for (the others the API or the evidence rules check). */
const MODEL_RULES = new Set<QuestionRule>(["negation_distractor", "blank_in_point_name"]);

export * from "./schema";

/** The true/false option pairs, normalised and sorted: the learner's language's, and English's (models often keep it). */
function trueFalsePairs(locale: Locale) {
  return new Set(
    [TEMPLATES[locale] ?? TEMPLATES.en, TEMPLATES.en].map((t) => t.quiz.trueFalse.map(norm).sort().join("|")),
  );
}

export const quizGeneration = defineJobType({
  ...quizGenerationEntry,
  quality(v, check) {
    const params = check.params();
    if (v.questions.length !== params.count)
      check.add("questions", "count_mismatch", `${v.questions.length} generated, ${params.count} requested`);
    for (const d of duplicates(v.questions.map((q) => q.stem))) {
      const at = v.questions.map((q) => norm(q.stem)).lastIndexOf(d);
      check.add(`questions.${at}.stem`, "duplicate_stem", `duplicate stem "${d}"`);
    }
    v.questions.forEach((q, i) => {
      check.knowledgePoint(`questions.${i}`, q.knowledgePointId);
      if (!params.questionTypes.includes(q.type))
        check.add(`questions.${i}.type`, "question_type_not_requested", `type ${q.type} was not requested`);
      if (params.difficulty !== "mixed" && q.difficulty !== params.difficulty)
        check.add(
          `questions.${i}.difficulty`,
          "difficulty_mismatch",
          `difficulty ${q.difficulty}, ${params.difficulty} requested`,
        );
      if (q.type === "short_answer") {
        const kp = check.snapshot?.knowledgePoints.find((k) => k.id === q.knowledgePointId);
        // A free answer's model answer is what she marks herself against: it must be the material's.
        if (kp && check.snapshot && gradingOf(q) === "self") {
          const passage = pointPassage(check.snapshot, kp);
          if (passage.length && !supported(q.answer, [...passage, kp.description]))
            check.add(
              `questions.${i}.answer`,
              "model_answer_unsupported",
              "the model answer is not what the knowledge point's passage in its material says",
            );
        }
        return;
      }
      const options = q.options.map(norm);
      if (options.length < 2)
        check.add(`questions.${i}.options`, "too_few_options", "a choice question needs at least two options");
      if (new Set(options).size !== options.length)
        check.add(`questions.${i}.options`, "options_repeat", "options repeat");
      const correct = options.filter((o) => o === norm(q.answer)).length;
      if (correct !== 1)
        check.add(
          `questions.${i}.answer`,
          "one_correct_option",
          `exactly one option must be the answer (found ${correct})`,
        );
    });
  },
  qualityChecks(v, { locale, snapshot }) {
    const findings: string[] = [];
    const concepts = new Map(snapshot.knowledgePoints.map((k) => [k.id, conceptOf(k)]));
    const [yes, no] = TEMPLATES[locale].quiz.trueFalse;
    const pairs = trueFalsePairs(locale);
    v.questions.forEach((q, i) => {
      if (q.type === "true_false") {
        const options = q.options.map(norm).sort().join("|");
        if (!pairs.has(options))
          findings.push(`questions.${i}: a true/false question has the options ${yes} and ${no}`);
      }
      if (q.type === "short_answer" && q.options.length)
        findings.push(`questions.${i}: a short-answer question has no options`);
      // The teacher's checklist (docs/item-checklist.md), the rules a model's question is sent back for.
      for (const rule of checkQuestion(q, concepts.get(q.knowledgePointId) ?? "", snapshot))
        if (MODEL_RULES.has(rule)) findings.push(`questions.${i}: ${QUESTION_RULES[rule]}`);
    });
    return findings;
  },
  prompt: {
    task: [
      "Write quiz questions from the knowledge points' and materials' own content. Single-choice and true/false questions have exactly one option equal to the answer among at least two distinct options; short-answer questions have no options.",
      "Test understanding, not recognition of a sentence: when a point's material gives a formula, ask a calculation with numbers and units (F浮 = ρ液gV排; 称重法 from two spring-scale readings); when it states a cause (因为/所以/由于/因此, because/so/therefore), ask why.",
      "Distractors are misconceptions the material states and refutes (浸没越深浮力越大) or plausible confusions, never the answer's own negation; every option is of the answer's kind.",
      "No stem whose grammar or whose point's title gives the answer (no blank in the point's own name); a true/false statement is a full sentence, never a bare heading.",
    ].join(" "),
    rules: (params, locale) => [
      `A true/false question has exactly the two options ${JSON.stringify(TEMPLATES[locale].quiz.trueFalse)}.`,
      `Generate exactly ${params.count} questions of the types ${JSON.stringify(params.questionTypes)}.`,
      params.difficulty === "mixed"
        ? "Choose each question's difficulty (easy, medium, hard) from the learner's mastery."
        : `Every question has difficulty "${params.difficulty}".`,
    ],
  },
  analyse: (snapshot, params, _asOf, locale) => generateQuiz(snapshot, params, locale),
});
