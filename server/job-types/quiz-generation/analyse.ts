import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { templatesFor, type Templates } from "../shared/templates";
import type { Quiz, QuizParams } from "./schema";
import { JobFailure } from "../../pipeline/errors";
import { knowledgeStats, quizOrder, type KpStats } from "../shared/statistics";
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

/** Exactly one option equals the answer; the others are distinct from it and from each other. */
function choice(answer: string, distractors: string[], total: number, generic: readonly string[]) {
  const a = clip(answer, 300);
  const seen = new Set([norm(a)]);
  const others: string[] = [];
  for (const d of [...distractors, ...generic]) {
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

function make(
  snapshot: SnapshotContent,
  kp: Kp,
  type: QuestionType,
  variant: number,
  difficulty: Difficulty,
  Q: Templates["quiz"],
): Omit<Question, "knowledgePointId" | "difficulty"> | null {
  const others = peersOf(snapshot, kp);
  const statement = statementOf(snapshot, kp);
  const title = titleOf(kp);
  const sources = sourceSentences(snapshot, kp);
  const n = OPTIONS_BY_DIFFICULTY[difficulty];
  const terms = materialTerms(snapshot, kp);
  const source = (i: number) => {
    const s = sources[i];
    const word = s && keyword(s.sentence, terms);
    return s && word ? { ...s, word, text: cloze(s.sentence, word) } : null;
  };
  const explanation = clip(Q.from(title, statement), 2000);

  if (type === "single_choice") {
    if (variant === 0) {
      const distractors = [
        ...others.map((k) => statementOf(snapshot, k)),
        ...materialStatements(snapshot, kp, statement),
      ];
      return {
        type,
        stem: clip(Q.whichStatement(title), 1000),
        ...choice(statement, distractors, n, Q.distractors),
        explanation,
      };
    }
    if (variant === 1) {
      return {
        type,
        stem: clip(Q.whichPoint(statement), 1000),
        ...choice(title, others.map(titleOf), n, Q.distractors),
        explanation,
      };
    }
    const s = source(variant - 2);
    if (!s) return null;
    // The material's other key terms: real terms of the same text, never the answer in another case.
    const words = [...terms, ...sources.map((x) => keyword(x.sentence))].filter(
      (w): w is string => !!w && norm(w) !== norm(s.word),
    );
    return {
      type,
      stem: clip(Q.fillBlank(s.materialTitle, s.text), 1000),
      ...choice(s.word, words, n, Q.distractors),
      explanation: clip(s.sentence, 2000),
    };
  }
  if (type === "true_false") {
    const tf = (stem: string, truth: boolean, why: string) => ({
      type,
      stem: clip(stem, 1000),
      options: [...Q.trueFalse],
      answer: truth ? Q.trueFalse[0] : Q.trueFalse[1],
      explanation: clip(why, 2000),
    });
    if (variant === 0) return tf(Q.trueOrFalse(title, statement), true, explanation);
    if (variant === 1) {
      const other = others.find((k) => norm(statementOf(snapshot, k)) !== norm(statement));
      return other
        ? tf(Q.trueOrFalse(title, statementOf(snapshot, other)), false, Q.describesOther(titleOf(other), explanation))
        : null;
    }
    const s = sources[variant - 2];
    return s ? tf(Q.trueOrFalseSource(s.materialTitle, s.sentence), true, Q.materialSays(s.sentence)) : null;
  }
  if (variant === 0)
    return {
      type,
      stem: clip(Q.explain(title), 1000),
      options: [],
      answer: clip(statement, 1000),
      explanation,
    };
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
  const questions: Question[] = [];
  for (let i = 0; questions.length < params.count; i++) {
    const s = order[i % order.length]!;
    const round = Math.floor(i / order.length);
    const type = types[(i + round) % types.length]!;
    const difficulty = params.difficulty === "mixed" ? difficultyFor(s) : params.difficulty;
    const key = `${s.kp.id}:${type}`;
    let q: ReturnType<typeof make> = null;
    // Try this point's next unused variant of the type; give up on it after a few blanks.
    for (let v = nextVariant.get(key) ?? 0, tries = 0; tries < 12 && !q; v++, tries++) {
      const candidate = make(snapshot, s.kp, type, v, difficulty, Q);
      nextVariant.set(key, v + 1);
      if (candidate && !stems.has(norm(candidate.stem))) q = candidate;
    }
    if (!q) {
      // Out of distinct material: a numbered variant of the first question keeps stems unique.
      const base = make(snapshot, s.kp, type, 0, difficulty, Q)!;
      q = { ...base, stem: clip(Q.numbered(base.stem, questions.length + 1), 1000) };
    }
    stems.add(norm(q.stem));
    questions.push({ ...q, knowledgePointId: s.kp.id, difficulty });
  }
  return { questions };
}
