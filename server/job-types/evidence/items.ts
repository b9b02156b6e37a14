import { norm } from "../fields";
import type { Flashcards } from "../flashcard-generation/schema";
import type { Quiz } from "../quiz-generation/schema";
import type { EvidenceRules, Finding } from "./finding";

/**
 * A section heading's numbering at the start of a title: "一、", "（二）", "第三章", "1.", "2.3 ",
 * "IV. ", "Chapter 2:", "Section 1.2". A title that has it is a heading, not a concept's name.
 */
export const HEADING_NUMBER =
  /^\s*(?:[一二三四五六七八九十百零〇]+\s*[、.．]|[（(]\s*[一二三四五六七八九十百零〇\d]+\s*[)）]|第\s*[一二三四五六七八九十百零〇\d]+\s*[章节课部篇单元]|\d+(?:\.\d+)+\s|\d+(?:\.\d+)*\s*[、.．)）]|[IVXLC]+\.\s|(?:chapter|section|part|unit|lesson)\s+[\dIVXLC]+(?:\.\d+)*\s*[:.：]?)\s*/iu;

/** A knowledge point's name without a heading's numbering ("一、电流" → "电流"). */
export const keyTermOf = (title: string) => title.replace(HEADING_NUMBER, "").trim();

const QUOTE_OPEN = /["“‘「『《(（]/gu;

/** True when the text, or a quoted part of it, starts with a heading's numbering ("什么是“一、电流”？"). */
export function quotesHeading(text: string): boolean {
  if (HEADING_NUMBER.test(text)) return true;
  return [...text.matchAll(QUOTE_OPEN)].some((m) => HEADING_NUMBER.test(text.slice(m.index! + 1)));
}

/** A question, or a cue with a blank to fill: "?", "？", "____", "（  ）". */
export const asksSomething = (text: string) => /[?？]|_{3,}|（\s*）|\(\s*\)/u.test(text);

export const quizRules: EvidenceRules<Quiz> = {
  rules: {
    true_false_both:
      "A quiz with two or more true/false questions has both values among their answers (not every statement true, nor every one false).",
    answer_repeats_key_term:
      "The answer of a single-choice question does not contain the key term of its stem: its knowledge point's title without a heading's numbering (at least 2 characters), when the stem names it.",
  },
  check(v, { snapshot }) {
    const found: Finding[] = [];
    const title = new Map(snapshot.knowledgePoints.map((k) => [k.id, k.title]));
    const tf = v.questions.filter((q) => q.type === "true_false");
    if (tf.length >= 2 && new Set(tf.map((q) => norm(q.answer))).size < 2)
      found.push({
        rule: "true_false_both",
        path: "questions",
        message: `all ${tf.length} true/false questions have the answer "${tf[0]!.answer}": make some statements false`,
      });
    v.questions.forEach((q, i) => {
      if (q.type !== "single_choice") return;
      const term = norm(keyTermOf(title.get(q.knowledgePointId) ?? ""));
      if ([...term].length < 2 || !norm(q.stem).includes(term)) return;
      if (norm(q.answer).includes(term))
        found.push({
          rule: "answer_repeats_key_term",
          path: `questions.${i}.answer`,
          message: `the answer repeats "${keyTermOf(title.get(q.knowledgePointId)!)}", the term the stem asks about: it gives the answer away`,
        });
    });
    return found;
  },
};

export const flashcardRules: EvidenceRules<Flashcards> = {
  rules: {
    front_is_question: 'A card\'s front asks something: a question ("?" or "？") or a cue with a blank ("____").',
    front_is_heading:
      'A card\'s front is about the concept, not its heading: it is not the point\'s title alone, and neither it nor a quoted part of it starts with a heading\'s numbering ("一、", "1.", "Chapter 2").',
  },
  check(v, { snapshot }) {
    const found: Finding[] = [];
    const title = new Map(snapshot.knowledgePoints.map((k) => [k.id, k.title]));
    v.flashcards.forEach((c, i) => {
      const t = title.get(c.knowledgePointId) ?? "";
      const front = norm(c.front);
      if (!asksSomething(c.front))
        found.push({ rule: "front_is_question", path: `flashcards.${i}.front`, message: `"${c.front}" asks nothing` });
      if (front === norm(t) || front === norm(keyTermOf(t)) || quotesHeading(c.front))
        found.push({
          rule: "front_is_heading",
          path: `flashcards.${i}.front`,
          message: `"${c.front}" is the section heading "${t}", not a question about the concept "${keyTermOf(t)}"`,
        });
    });
    return found;
  },
};
