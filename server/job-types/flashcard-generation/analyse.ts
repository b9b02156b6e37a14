import type { Flashcards, FlashcardParams } from "./schema";
import { hasCjk, type SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { templatesFor, type Templates } from "../shared/templates";
import { JobFailure } from "../../pipeline/errors";
import { isWeak, knowledgeStats, quizOrder } from "../shared/statistics";
import { BLANK, conceptOf, names, replaceAll, sectionOf } from "../shared/items";
import {
  clip,
  cloze,
  keyword,
  materialTerms,
  materialTitleOf,
  norm,
  slug,
  sourceSentences,
  statementOf,
  type Kp,
} from "../shared/text";

type Card = Flashcards["flashcards"][number];

/** At most this much of the section on a card's back. */
const BACK_MAX = 800;

function make(
  snapshot: SnapshotContent,
  kp: Kp,
  variant: number,
  F: Templates["flashcards"],
): Omit<Card, "knowledgePointId" | "tags"> | null {
  const concept = conceptOf(kp);
  const statement = statementOf(snapshot, kp);
  // The back covers the point's section: its description, then what the material says of it.
  const section = sectionOf(snapshot, kp);
  const description = kp.description.trim();
  const back =
    description && !norm(section).includes(norm(description))
      ? `${description}${hasCjk(description) ? "" : " "}${section}`
      : section;
  if (variant === 0) return { front: clip(F.whatIs(concept), 500), back: clip(back, BACK_MAX) };
  if (variant === 1) {
    const hidden = replaceAll(statement, concept, BLANK);
    if (names(hidden, concept) || norm(hidden) === norm(statement)) return null;
    return { front: clip(F.whichIdea(hidden), 500), back: clip(F.clozeBack(concept, back), BACK_MAX) };
  }
  const s = sourceSentences(snapshot, kp)[variant - 2];
  const word = s && keyword(s.sentence, materialTerms(snapshot, kp));
  if (!s || !word) return null;
  return {
    front: clip(F.fillBlank(cloze(s.sentence, word)), 500),
    back: clip(F.clozeBack(word, s.sentence), 2000),
  };
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
