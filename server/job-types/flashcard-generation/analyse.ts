import type { Flashcards, FlashcardParams } from "./schema";
import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { templatesFor, type Templates } from "../shared/templates";
import { JobFailure } from "../../pipeline/errors";
import { isWeak, knowledgeStats, quizOrder } from "../shared/statistics";
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
  titleOf,
  type Kp,
} from "../shared/text";

type Card = Flashcards["flashcards"][number];

function make(
  snapshot: SnapshotContent,
  kp: Kp,
  variant: number,
  F: Templates["flashcards"],
): Omit<Card, "knowledgePointId" | "tags"> | null {
  const title = titleOf(kp);
  const statement = statementOf(snapshot, kp);
  if (variant === 0) return { front: clip(F.whatIs(title), 500), back: clip(statement, 2000) };
  if (variant === 1) return { front: clip(F.whichIdea(statement), 500), back: clip(title, 2000) };
  const s = sourceSentences(snapshot, kp)[variant - 2];
  const word = s && keyword(s.sentence, materialTerms(snapshot, kp));
  if (!s || !word) return null;
  return {
    front: clip(F.fillBlank(cloze(s.sentence, word)), 500),
    back: clip(F.clozeBack(word, s.sentence), 2000),
  };
}

/**
 * flashcard_generation from the knowledge points and their materials: a definition card, a
 * reverse card, then cloze cards from the material's sentences, weakest points first; tagged
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
