import { hasCjk, norm, type SnapshotContent } from "../fields";
import type { Quiz } from "../quiz-generation/schema";
import type { Flashcards } from "../flashcard-generation/schema";
import { TEMPLATES } from "./templates";
import { isStatement, negate } from "./items";
import { sentences } from "./text";

/**
 * The teacher's checklist (docs/item-checklist.md) as far as a program can apply it: the rules a
 * question or a card must pass, each named. Used by `npm run eval:items` on the labelled item set
 * and by the quiz's and the cards' review of a model's output.
 */
export const QUESTION_RULES = {
  one_answer: "A choice question has at least two distinct options, exactly one of them the answer.",
  negation_distractor: "No option is the answer's own negation (the answer with 不/没/not added or removed).",
  stem_gives_answer: "The stem of a single-choice or short-answer question does not contain its answer.",
  blank_in_point_name: "A blank never hides the point's own name or a word of it (影响_____大小的因素 for 浮力).",
  only_one_fits:
    "The options are of one kind: at most one generic option, and no option a sentence among terms or a term among sentences.",
  bare_heading: "A true/false statement is a statement: not a heading or a point's name, long enough to say something.",
} as const;
export const CARD_RULES = {
  front_asks: "A card's front asks something: a question or a blank.",
  back_answers: "A card's back answers its front: not the concept's name alone when the front asks what it is.",
  back_short:
    "A card's back answers in one or two sentences (120 Chinese characters, 300 English); the source passage, if any, comes apart after a blank line.",
  answer_twice: "A card's back does not print its answer twice.",
} as const;
export type QuestionRule = keyof typeof QUESTION_RULES;
export type CardRule = keyof typeof CARD_RULES;

type Question = Quiz["questions"][number];
type Card = Flashcards["flashcards"][number];

const GENERIC = new Set(Object.values(TEMPLATES).flatMap((t) => t.quiz.distractors.map(norm)));
const length = (s: string) => Array.from(s.trim()).length;
/** A text without its negating words: 不/没有/没, not/n't/no. */
const unnegated = (s: string) =>
  norm(s)
    .replace(/不|没有|没/gu, "")
    .replace(/\b(?:not|no)\b|n't/giu, "")
    .replace(/\s+/g, " ")
    .trim();

/** The statement a true/false question asks about: its stem without the "判断正误：" / "True or false:" prefix. */
export const statementOfStem = (stem: string) =>
  stem.replace(/^(?:True or false(?:\s*\([^)]*\))?:\s*|判断正误(?:（[^）]*）)?：)/iu, "").trim();

/** The rules a question breaks, given the point's concept (its title without numbering) and the snapshot. */
export function checkQuestion(q: Question, concept: string, snapshot: SnapshotContent): QuestionRule[] {
  const broken: QuestionRule[] = [];
  const answer = norm(q.answer);
  if (q.type !== "short_answer") {
    const options = q.options.map(norm);
    if (
      options.length < 2 ||
      new Set(options).size !== options.length ||
      options.filter((o) => o === answer).length !== 1
    )
      broken.push("one_answer");
    const negated = negate(q.answer);
    if (
      q.type === "single_choice" &&
      q.options.some(
        (o) => norm(o) !== answer && (unnegated(o) === unnegated(q.answer) || (negated && norm(o) === norm(negated))),
      )
    )
      broken.push("negation_distractor");
  }
  if (q.type !== "true_false" && length(answer) >= 2 && norm(q.stem).includes(answer)) broken.push("stem_gives_answer");
  // "影响_____大小的因素" for 浮力: the blank hides a part of the point's name (asking which point it is is fair).
  const [a, c] = [norm(q.answer), norm(concept)];
  if (/_{3,}/u.test(q.stem) && q.type !== "true_false" && a !== c && c.includes(a)) broken.push("blank_in_point_name");
  if (q.type === "single_choice") {
    const generic = q.options.filter((o) => GENERIC.has(norm(o))).length;
    const real = q.options.filter((o) => !GENERIC.has(norm(o)));
    const lengths = real.map(length);
    const [short, long] = [Math.min(...lengths), Math.max(...lengths)];
    if (generic > 1 || (long >= 15 && long > 4 * short)) broken.push("only_one_fits");
  }
  // A heading has no closing mark; a statement ends as a sentence does.
  const statement = statementOfStem(q.stem)
    .replace(/[（(]\s*(?:question|第)\s*\d+\s*(?:题)?[)）]$/u, "")
    .trim();
  if (q.type === "true_false" && (!isStatement(statement, snapshot) || !/[。.!?！？)）]$/u.test(statement)))
    broken.push("bare_heading");
  return broken;
}

/** The answer part of a card's back: what comes before the source passage. */
export const answerPart = (back: string) => back.split(/\n\s*\n/u)[0]!.trim();

/** The rules a card breaks. */
export function checkCard(card: Card, concept: string): CardRule[] {
  const broken: CardRule[] = [];
  if (!/[?？]|_{3,}|（\s*）|\(\s*\)/u.test(card.front)) broken.push("front_asks");
  const answer = answerPart(card.back);
  // "What is X?" answered "X".
  if (norm(card.front).includes(norm(concept)) && norm(answer) === norm(concept)) broken.push("back_answers");
  const max = hasCjk(answer) ? 120 : 300;
  if (length(answer) > max || sentences(answer).length > 2) broken.push("back_short");
  // "浮力——浮力是…": the answer, then a sentence that opens with it again.
  const lead = /^(.{1,40}?)\s*(?:——|—|–| - )\s*(.+)$/su.exec(answer);
  const said = sentences(answer).map(norm);
  if ((lead && norm(lead[2]!).includes(norm(lead[1]!))) || new Set(said).size !== said.length)
    broken.push("answer_twice");
  return broken;
}

/** A calculation: numbers with units in the stem, the answer a number with its unit. */
export const isCalculation = (q: Question) =>
  /\d\s*[A-Za-zΩ%℃°\p{Script=Han}/²³]/u.test(q.stem) &&
  /^-?\d[\d.]*\s*[A-Za-zΩ%][A-Za-zΩ/²³·]*$/u.test(q.answer.trim());
/** A why-question: it asks for a reason. */
export const isWhy = (q: Question) => /为什么|原因|\bwhy\b|\breason\b/iu.test(q.stem);
