import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { templatesFor, type Templates } from "../shared/templates";
import type { Quiz, QuizParams } from "./schema";
import { JobFailure } from "../../pipeline/errors";
import { modelAnswer } from "./model-answer";
import { knowledgeStats, quizOrder, type KpStats } from "../shared/statistics";
import {
  BLANK,
  byConfusion,
  conceptOf,
  givesAway,
  inName,
  isStatement,
  names,
  negate,
  replaceAll,
  swapConcept,
} from "../shared/items";
import { calculationQuestion, misconceptionStatement, whyQuestion } from "./understanding";
import {
  clip,
  cloze,
  keyword,
  materialTerms,
  norm,
  sourceSentences,
  statementOf,
  titleOf,
  type Kp,
} from "../shared/text";

type Question = Quiz["questions"][number];
type QuestionType = Question["type"];
type Difficulty = Question["difficulty"];

const OPTIONS_BY_DIFFICULTY: Record<Difficulty, number> = { easy: 3, medium: 4, hard: 4 };

export function difficultyFor(s: KpStats): Difficulty {
  if (!s.attempts.length || s.mastery < 0.4) return "easy";
  return s.mastery < 0.75 ? "medium" : "hard";
}

/**
 * Exactly one option equals the answer; the others are distinct from it and from each other. At
 * most one generic option ("None of the other options"): a question whose other options are all
 * generic has only one that fits.
 */
function choice(answer: string, distractors: string[], total: number, generic: readonly string[]) {
  const a = clip(answer, 300);
  const seen = new Set([norm(a)]);
  const others: string[] = [];
  for (const d of [...distractors, ...generic.slice(0, 1)]) {
    const o = clip(d, 300);
    if (others.length >= total - 1 || seen.has(norm(o))) continue;
    seen.add(norm(o));
    others.push(o);
  }
  // The answer's position rotates with the text, deterministically, so it is not always first.
  const at = [...a].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % (others.length + 1);
  return { options: [...others.slice(0, at), a, ...others.slice(at)], answer: a };
}

/**
 * The knowledge points a distractor may come from: those of the same material (the same
 * subject), never another material's. A linear-equations question that offers sentences about
 * photosynthesis tests nothing; points without a material only pair with each other.
 */
export function peersOf(snapshot: SnapshotContent, kp: Kp): Kp[] {
  return snapshot.knowledgePoints.filter((k) => k.id !== kp.id && k.materialId === kp.materialId);
}

/** Other sentences of the point's own material, for when its peers do not give enough options. */
function materialStatements(snapshot: SnapshotContent, kp: Kp, statement: string): string[] {
  if (!kp.materialId) return [];
  const own = norm(statement);
  return sourceSentences(snapshot, kp)
    .map((s) => s.sentence)
    .filter((s) => !own.includes(norm(s)) && !norm(s).includes(own))
    .reverse(); // least related to this point first: plausible, yet wrong for it
}

/** The point's statement with its own concept hidden, so that an option or a stem does not name it. */
const masked = (snapshot: SnapshotContent, kp: Kp) => replaceAll(statementOf(snapshot, kp), conceptOf(kp), BLANK);

/**
 * A false statement about the point: one that names it with a sibling's concept in its place,
 * or its definition negated or turned into its common confusion (正比 → 反比, is → is not);
 * `variant` walks through them. With the reason it is false.
 */
function falseStatement(
  snapshot: SnapshotContent,
  kp: Kp,
  variant: number,
  Q: Templates["quiz"],
): { text: string; why: string } | null {
  const concept = conceptOf(kp);
  const statement = statementOf(snapshot, kp);
  // Only statements are made false: never a heading or a bare name ("减小和减小压强的方法").
  const said = (s: string) => isStatement(s, snapshot);
  const naming = [statement, ...sourceSentences(snapshot, kp).map((s) => s.sentence)].filter(
    (s) => names(s, concept) && said(s),
  );
  type Made = { text: string; why: string };
  const swaps: Made[] = [];
  const negations: Made[] = [];
  for (const sentence of [...new Set(naming)].slice(0, 3)) {
    for (const sibling of byConfusion(concept, peersOf(snapshot, kp).map(conceptOf))) {
      const text = swapConcept(sentence, concept, sibling);
      if (text) swaps.push({ text, why: Q.swapped(concept, sibling, sentence) });
    }
  }
  for (const sentence of [statement, ...sourceSentences(snapshot, kp).map((s) => s.sentence)]
    .filter(said)
    .slice(0, 4)) {
    const text = negate(sentence);
    if (text) negations.push({ text, why: Q.negated(sentence) });
  }
  // Alternate the two ways, so a quiz holds both kinds.
  const mixed = Array.from({ length: Math.max(swaps.length, negations.length) }).flatMap((_, i) =>
    [swaps[i], negations[i]].filter((x): x is Made => !!x),
  );
  return mixed[variant] ?? null;
}

function make(
  snapshot: SnapshotContent,
  kp: Kp,
  type: QuestionType,
  variant: number,
  difficulty: Difficulty,
  Q: Templates["quiz"],
  truth: boolean,
): Omit<Question, "knowledgePointId" | "difficulty"> | null {
  const others = peersOf(snapshot, kp);
  const statement = statementOf(snapshot, kp);
  const concept = conceptOf(kp);
  const sources = sourceSentences(snapshot, kp);
  const n = OPTIONS_BY_DIFFICULTY[difficulty];
  const terms = materialTerms(snapshot, kp);
  // A blank never hides the point's own name, nor a word of it ("影响_____大小的因素" for 浮力).
  const clozeTerms = terms.filter((t) => !inName(t, concept));
  const source = (i: number) => {
    const s = sources[i];
    const word = s && keyword(s.sentence, clozeTerms);
    return s && word && !inName(word, concept) ? { ...s, word, text: cloze(s.sentence, word) } : null;
  };
  const explanation = clip(Q.from(concept, statement), 2000);

  // First what tests understanding: a calculation, a why-question, a misconception the material refutes.
  const first =
    type === "true_false"
      ? truth
        ? []
        : [0, 1].map((k) => misconceptionStatement(snapshot, kp, Q, k))
      : type === "single_choice"
        ? [
            calculationQuestion(snapshot, kp, concept, type, n, Q, 0),
            whyQuestion(snapshot, kp, type, n, Q, 0),
            whyQuestion(snapshot, kp, type, n, Q, 1),
          ]
        : // A short answer asks why first; its calculation has other numbers than the choice's.
          [
            whyQuestion(snapshot, kp, type, n, Q, 0),
            calculationQuestion(snapshot, kp, concept, type, n, Q, 1),
            whyQuestion(snapshot, kp, type, n, Q, 1),
          ];
  const understanding = first.filter((q): q is NonNullable<typeof q> => !!q);
  if (variant < understanding.length) return understanding[variant]!;
  variant -= understanding.length;

  if (type === "single_choice") {
    if (variant === 0) {
      // Every option with its own concept hidden: the stem names this one, no option may.
      // Never the answer's own negation: other points' statements and the material's other sentences.
      const own = masked(snapshot, kp);
      // A statement that is only the hidden name says nothing to choose.
      const says = (x: string) => norm(x.split(BLANK).join("")).length >= 4;
      if (!says(own)) return null;
      const distractors = [
        ...others.map((k) => masked(snapshot, k)),
        ...materialStatements(snapshot, kp, statement).map((x) => replaceAll(x, concept, BLANK)),
      ].filter((d) => !names(d, concept) && says(d));
      return {
        type,
        stem: clip(Q.whichStatement(concept), 1000),
        ...choice(own, distractors, n, Q.distractors),
        explanation,
      };
    }
    if (variant === 1) {
      // Sibling points first, those most easily confused with this one first, then the material's terms.
      const pool = byConfusion(concept, [...others.map(conceptOf), ...terms]);
      return {
        type,
        stem: clip(Q.whichPoint(masked(snapshot, kp)), 1000),
        ...choice(concept, pool, n, Q.distractors),
        explanation,
      };
    }
    const s = source(variant - 2);
    if (!s) return null;
    // The material's other key terms, those most like the answer first: never the answer in another case.
    const words = byConfusion(
      s.word,
      [...terms, ...sources.map((x) => keyword(x.sentence))].filter(
        (w): w is string => !!w && norm(w) !== norm(s.word),
      ),
    );
    return {
      type,
      stem: clip(Q.fillBlank(s.materialTitle, s.text), 1000),
      ...choice(s.word, words, n, Q.distractors),
      explanation: clip(s.sentence, 2000),
    };
  }
  if (type === "true_false") {
    const tf = (stem: string, value: boolean, why: string) => ({
      type,
      stem: clip(stem, 1000),
      options: [...Q.trueFalse],
      answer: value ? Q.trueFalse[0] : Q.trueFalse[1],
      explanation: clip(why, 2000),
    });
    // A heading or a bare name is no statement to judge ("判断正误：物体的浮沉条件").
    const said = (statement: string) => isStatement(statement, snapshot);
    if (!truth) {
      const f = falseStatement(snapshot, kp, variant, Q);
      if (f) return said(f.text) ? tf(Q.trueOrFalse(f.text), false, f.why) : null;
      // Nothing to swap or negate: a sibling's statement under this point's name.
      const other = others[variant];
      if (other && norm(statementOf(snapshot, other)) !== norm(statement))
        return tf(
          Q.trueOrFalse(Q.pair(concept, masked(snapshot, other))),
          false,
          Q.describesOther(titleOf(other), explanation),
        );
      // No sibling and nothing to negate: the claim that the course lacks this point, which it has.
      return variant === 0 ? tf(Q.trueOrFalse(Q.notInCourse(concept)), false, Q.inCourse(concept, explanation)) : null;
    }
    // A point with nothing to state but its name: that the course has it.
    if (variant === 0)
      return said(statement)
        ? tf(Q.trueOrFalse(statement), true, explanation)
        : tf(Q.trueOrFalse(Q.isInCourse(concept)), true, explanation);
    const s = sources[variant - 1];
    return s && said(s.sentence)
      ? tf(Q.trueOrFalseSource(s.materialTitle, s.sentence), true, Q.materialSays(s.sentence))
      : null;
  }
  if (variant === 0) {
    // The model answer is the material's own passage on the point (model-answer.ts), else its
    // statement; a point with nothing to state but its name gets no free question.
    const answer = modelAnswer(snapshot, kp) ?? statement;
    return norm(answer) === norm(concept)
      ? null
      : {
          type,
          stem: clip(Q.explain(concept), 1000),
          options: [],
          answer: clip(answer, 1000),
          explanation: clip(Q.from(concept, answer), 2000),
        };
  }
  const s = source(variant - 1);
  return s
    ? {
        type,
        stem: clip(Q.fillBlank(s.materialTitle, s.text), 1000),
        options: [],
        answer: clip(s.word, 1000),
        explanation: clip(s.sentence, 2000),
      }
    : null;
}

/** A single-choice question whose answer the stem gives away (both name the point's concept) is no question. */
const fair = (q: ReturnType<typeof make>, kp: Kp) =>
  !!q && (q.type !== "single_choice" || !givesAway(q.stem, q.answer, conceptOf(kp)));

/**
 * quiz_generation from the knowledge points' descriptions and their materials' sentences:
 * weakest points first, question types taken in turn, the requested difficulty (or, for
 * "mixed", one set by the point's mastery). Stems never repeat.
 */
export function generateQuiz(snapshot: SnapshotContent, params: QuizParams, locale: Locale = "en"): Quiz {
  const Q = templatesFor(locale).quiz;
  const order = quizOrder(knowledgeStats(snapshot));
  if (!order.length)
    throw new JobFailure("INVALID_SNAPSHOT", "the snapshot has no knowledge points to write questions about");
  const types = params.questionTypes;
  const stems = new Set<string>();
  const nextVariant = new Map<string, number>();
  const asked = new Map<string, number>();
  const questions: Question[] = [];
  // True/false statements alternate true and false (the first one's value from the quiz's first
  // point), so a quiz with two or more holds both.
  const tfOf = new Map<string, number>();
  const tfStart = new Map<string, boolean>();
  const firstTruth = [...order[0]!.kp.id].reduce((h, c) => h + c.charCodeAt(0), 0) % 2 === 0;
  for (let i = 0; questions.length < params.count; i++) {
    const s = order[i % order.length]!;
    // Each point takes the types in turn (starting from its place in the order), so that every
    // point is asked every type, whatever the number of points.
    const turn = asked.get(s.kp.id) ?? 0;
    asked.set(s.kp.id, turn + 1);
    const type = types[(turn + (i % order.length)) % types.length]!;
    const difficulty = params.difficulty === "mixed" ? difficultyFor(s) : params.difficulty;
    // Each point's statements alternate true and false, and the points start on alternate values,
    // so a quiz with two or more holds both, and so does each point asked twice.
    const own = tfOf.get(s.kp.id) ?? 0;
    if (type === "true_false" && !tfStart.has(s.kp.id)) tfStart.set(s.kp.id, (tfStart.size % 2 === 0) === firstTruth);
    const truth = type !== "true_false" || (own % 2 === 0) === tfStart.get(s.kp.id);
    const key = `${s.kp.id}:${type}:${truth}`;
    let q: ReturnType<typeof make> = null;
    // Try this point's next unused variant of the type; give up on it after a few blanks.
    for (let v = nextVariant.get(key) ?? 0, tries = 0; tries < 12 && !q; v++, tries++) {
      const candidate = make(snapshot, s.kp, type, v, difficulty, Q, truth);
      nextVariant.set(key, v + 1);
      if (candidate && fair(candidate, s.kp) && !stems.has(norm(candidate.stem))) q = candidate;
    }
    if (!q) {
      // Out of distinct material: a numbered variant of the first question keeps stems unique.
      const tries = [...Array(8).keys()].flatMap((v) =>
        [truth, !truth].map((t) => make(snapshot, s.kp, type, v, difficulty, Q, t)),
      );
      // A point with nothing but its name: asked to explain it (a short answer) or which point it is.
      const base: NonNullable<ReturnType<typeof make>> = tries.find((x) => fair(x, s.kp)) ??
        tries.find((x) => !!x) ?? {
          type,
          stem: clip(Q.explain(conceptOf(s.kp)), 1000),
          options: type === "short_answer" ? [] : [conceptOf(s.kp), ...Q.distractors.slice(0, 1)],
          answer: type === "short_answer" ? clip(statementOf(snapshot, s.kp), 1000) : conceptOf(s.kp),
          explanation: clip(Q.from(conceptOf(s.kp), statementOf(snapshot, s.kp)), 2000),
        };
      q = { ...base, stem: clip(Q.numbered(base.stem, questions.length + 1), 1000) };
    }
    if (type === "true_false") tfOf.set(s.kp.id, own + 1);
    stems.add(norm(q.stem));
    questions.push({ ...q, knowledgePointId: s.kp.id, difficulty });
  }
  return { questions };
}
