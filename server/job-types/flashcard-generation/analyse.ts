import type { Flashcards, FlashcardParams } from "./schema";
import { hasCjk, type SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { templatesFor, type Templates } from "../shared/templates";
import { JobFailure } from "../../pipeline/errors";
import { isWeak, knowledgeStats, quizOrder } from "../shared/statistics";
import { BLANK, conceptOf, inName, names, replaceAll, sectionOf } from "../shared/items";
import {
  clip,
  cloze,
  keyword,
  materialTerms,
  materialTitleOf,
  norm,
  sentences,
  slug,
  sourceSentences,
  statementOf,
  type Kp,
} from "../shared/text";

type Card = Flashcards["flashcards"][number];

/** The answer on a card's back: one or two sentences, at most this many graphemes. */
const ANSWER_MAX = { cjk: 120, latin: 300 } as const;
/** At most this much of the source passage under the answer. */
const SOURCE_MAX = 1200;

/** The first one or two sentences of a text that fit on a card as its answer. */
export function shortAnswer(text: string): string {
  const cjk = hasCjk(text);
  const max = cjk ? ANSWER_MAX.cjk : ANSWER_MAX.latin;
  const all = sentences(text);
  let out = "";
  for (const s of all.slice(0, 2)) {
    const next = out ? `${out}${cjk ? "" : " "}${s}` : s;
    if (out && Array.from(next).length > max) break;
    out = next;
  }
  return clip(out || text, max);
}

/** A card's back: the answer, then the passage it comes from apart ("原文：…", "Source: …") unless it is the answer. */
function backOf(answer: string, source: string, F: Templates["flashcards"]) {
  const a = clip(answer, 500);
  const s = source.trim();
  if (!s || norm(s) === norm(a) || norm(a).includes(norm(s))) return a;
  return `${a}\n\n${clip(F.source(s), SOURCE_MAX)}`;
}

/** The definition a point's section gives of it ("…，这个力叫做浮力。", "Osmosis is …"), else its statement. */
function definitionOf(snapshot: SnapshotContent, kp: Kp, section: string) {
  const concept = conceptOf(kp);
  const defining = sentences(section).find(
    (s) =>
      names(s, concept) &&
      /叫做|叫作|称为|是指|是|\bis\b|\bare\b|\bmeans\b|\bstates\b/iu.test(s) &&
      !/^(?:例如|for example)/iu.test(s),
  );
  const said = kp.description.trim() || defining;
  // Without a definition, the section's first sentences (never another point's sentence, never the bare name).
  return said && norm(said) !== norm(concept) ? said : section;
}

function make(
  snapshot: SnapshotContent,
  kp: Kp,
  variant: number,
  F: Templates["flashcards"],
): Omit<Card, "knowledgePointId" | "tags"> | null {
  const concept = conceptOf(kp);
  const statement = statementOf(snapshot, kp);
  // The back answers the front in a sentence or two; the point's section follows apart.
  const section = sectionOf(snapshot, kp);
  if (variant === 0)
    return {
      front: clip(F.whatIs(concept), 500),
      back: backOf(shortAnswer(definitionOf(snapshot, kp, section)), section, F),
    };
  if (variant === 1) {
    const hidden = replaceAll(statement, concept, BLANK);
    if (names(hidden, concept) || norm(hidden) === norm(statement) || norm(hidden.split(BLANK).join("")).length < 4)
      return null;
    // The answer once: the concept, then the section it comes from.
    return { front: clip(F.whichIdea(hidden), 500), back: backOf(concept, section, F) };
  }
  const s = sourceSentences(snapshot, kp)[variant - 2];
  const terms = materialTerms(snapshot, kp).filter((t) => !inName(t, concept));
  const word = s && keyword(s.sentence, terms);
  if (!s || !word || inName(word, concept)) return null;
  return { front: clip(F.fillBlank(cloze(s.sentence, word)), 500), back: backOf(word, s.sentence, F) };
}

/**
 * flashcard_generation from the knowledge points and their materials: a question about the
 * concept (its title without a heading's numbering) whose back covers its section, a reverse card
 * (its statement with the concept hidden), then cloze cards from the material's sentences, weakest points first; tagged
 * with the material and "needs-review" for weak points. Fronts never repeat.
 */
export function generateFlashcards(
  snapshot: SnapshotContent,
  params: FlashcardParams,
  locale: Locale = "en",
): Flashcards {
  const F = templatesFor(locale).flashcards;
  const order = quizOrder(knowledgeStats(snapshot));
  if (!order.length)
    throw new JobFailure("INVALID_SNAPSHOT", "the snapshot has no knowledge points to write cards about");
  const fronts = new Set<string>();
  const nextVariant = new Map<string, number>();
  const flashcards: Card[] = [];
  for (let i = 0; flashcards.length < params.count; i++) {
    const s = order[i % order.length]!;
    let card: ReturnType<typeof make> = null;
    for (let v = nextVariant.get(s.kp.id) ?? 0, tries = 0; tries < 12 && !card; v++, tries++) {
      const candidate = make(snapshot, s.kp, v, F);
      nextVariant.set(s.kp.id, v + 1);
      if (candidate && !fronts.has(norm(candidate.front))) card = candidate;
    }
    if (!card) {
      const base = make(snapshot, s.kp, 0, F)!;
      card = { ...base, front: clip(F.numbered(base.front, flashcards.length + 1), 500) };
    }
    fronts.add(norm(card.front));
    const material = materialTitleOf(snapshot, s.kp);
    const tags = [slug(material ?? F.general), ...(isWeak(s) ? [F.needsReview] : [])];
    flashcards.push({ ...card, knowledgePointId: s.kp.id, tags });
  }
  return { flashcards };
}
