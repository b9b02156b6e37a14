import { PASSAGE_MAX, type KpExtraction, type KpExtractionParams } from "./schema";
import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { JobFailure } from "../../pipeline/errors";
import { clip, norm, occurrence } from "../shared/text";
import { isStopWord, keyTermsOf, TERMS_INPUT_MAX, type Term } from "../shared/terms";

type Point = KpExtraction["knowledgePoints"][number];
/** A piece of the material: `text` is an exact substring of it, `heading` the section it sits under. */
type Sentence = { text: string; heading: string | null };

const TERMS_PER_POINT = 5;
/** A term becomes a point when it weighs at least this share of the material's heaviest term. */
const TITLE_SHARE = 0.25;

const HAN = /\p{Script=Han}/u;
const codePoints = (s: string) => Array.from(s);

/** Markdown headings (`# …`) and title-like lines (short, no sentence-ending mark, followed by text). */
function headingOf(line: string, next: string | undefined): string | null {
  // `next` is the next line that is not blank.
  const md = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
  if (md) return md[1]!.trim();
  const t = line.trim();
  if (!t || !next?.trim()) return null;
  if (codePoints(t).length > 60 || /[.!?。！？:：;；,，、]$/.test(t)) return null;
  return t;
}

/** The material's sentences, each an exact substring, with the heading above it (Intl.Segmenter: Chinese too). */
export function sentencesOf(text: string): Sentence[] {
  const lines = text.split("\n");
  // The next line with text after each line, in one pass from the end (not a search per line).
  const nextText: (string | undefined)[] = [];
  for (let i = lines.length - 1, next: string | undefined; i >= 0; i--) {
    nextText[i] = next;
    if (lines[i]!.trim()) next = lines[i];
  }
  const segmenter = new Intl.Segmenter("und", { granularity: "sentence" });
  const out: Sentence[] = [];
  let heading: string | null = null;
  lines.forEach((line, i) => {
    const h = headingOf(line, nextText[i]);
    if (h) {
      heading = h;
      return;
    }
    for (const { segment } of segmenter.segment(line)) {
      const s = segment.trim();
      // Too short to say anything: a stray "Dr." or a list marker.
      if (codePoints(s).length >= (HAN.test(s) ? 6 : 20)) out.push({ text: s, heading });
    }
  });
  return out;
}

/** A title starts with a capital, unless its first word is written otherwise on purpose ("pH scale", "iPhone"). */
const capitalise = (w: string) => (/^\p{Ll}+(?![\p{L}\p{N}])/u.test(w) ? w.charAt(0).toUpperCase() + w.slice(1) : w);
/** At most PASSAGE_MAX characters from the start (a prefix of a substring is still a substring), never splitting a character. */
const passageOf = (s: string) => codePoints(s).slice(0, PASSAGE_MAX).join("").trimEnd();
const FALLBACK_TITLE: Record<Locale, (n: number) => string> = { en: (n) => `Point ${n}`, "zh-CN": (n) => `要点 ${n}` };

/** At most `max` UTF-16 units from the start, never ending on half of a surrogate pair. */
const prefix = (s: string, max: number) => {
  const p = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(p) ? p.slice(0, -1) : p;
};

/** The key terms of a sentence, the material's heaviest first. */
const termsIn = (sentence: string, terms: Term[]) => terms.filter((t) => occurrence(sentence, t.text));

/**
 * knowledge_point_extraction, without a model: the target material's sections (a heading and its
 * first sentence) first, then its key terms (noun phrases weighted by frequency, rarity and
 * position: `keyTermsOf`), each with the first sentence that uses it and no other point's, in the
 * material's own order. Every passage is an exact substring of the material; titles are noun
 * phrases of the text, never a stop word, and never repeat each other nor a knowledge point the
 * material already has. Pure: the same snapshot and params give the same points.
 */
export function extractKnowledgePoints(
  snapshot: SnapshotContent,
  params: KpExtractionParams,
  locale: Locale = "en",
): KpExtraction {
  const material =
    snapshot.target.type === "material" ? snapshot.materials.find((m) => m.id === snapshot.target.id) : undefined;
  if (!material?.content.trim())
    throw new JobFailure("INVALID_SNAPSHOT", "the job's target is not a material with text to extract from");
  // The start of a long text, as keyTermsOf reads it (time in proportion to the text, never a split pair).
  const content = prefix(material.content, TERMS_INPUT_MAX);
  const sentences = sentencesOf(content);
  if (!sentences.length) sentences.push({ text: content.trim(), heading: null });
  const terms = keyTermsOf(content);
  const taken = new Set(snapshot.knowledgePoints.filter((k) => k.materialId === material.id).map((k) => norm(k.title)));
  const picked: { point: Point; at: number }[] = [];

  const add = (title: string, s: Sentence, at: number) => {
    const t = clip(title, 200);
    if (picked.length >= params.maxPoints || taken.has(norm(t))) return;
    taken.add(norm(t));
    const keyTerms = termsIn(s.text, terms)
      .slice(0, TERMS_PER_POINT)
      .map((k) => clip(k.text, 60));
    picked.push({
      at,
      point: {
        title: t,
        summary: clip(s.text, 300),
        keyTerms: keyTerms.length ? keyTerms : [clip(t, 60)],
        passage: passageOf(s.text),
      },
    });
  };

  // 1. Each heading, with the first sentence under it.
  sentences.forEach((s, i) => {
    if (s.heading && sentences.findIndex((x) => x.heading === s.heading) === i) add(s.heading, s, i);
  });
  // 2. The heaviest key terms, each with the first sentence that uses it (one no other point has,
  // when there is one). A term that holds a title or is held by one ("Cell wall" once "Cell" is a
  // point) is no new point.
  const sections = picked.length;
  const floor = (terms[0]?.score ?? 0) * TITLE_SHARE;
  // About one point a sentence: a teacher lists fewer points than a short text has nouns.
  const limit = Math.min(params.maxPoints, sentences.length + 1);
  for (const term of terms) {
    if (term.score < floor || picked.length >= limit) break;
    const title = capitalise(term.text);
    const t = norm(title);
    if (isStopWord(term.text) || [...taken].some((x) => x.includes(t) || t.includes(x))) continue;
    const using = sentences.map((s, i) => ({ s, i })).filter(({ s }) => occurrence(s.text, term.text));
    const free = using.find(({ i }) => !picked.some((p) => p.at === i)) ?? using[0];
    if (free) add(title, free.s, free.i);
  }
  // Sections first, in the material's order, then the other points in the material's order.
  const rest = picked.splice(sections).sort((a, b) => a.at - b.at);
  picked.push(...rest);
  // 3. A material with no usable term still yields a point.
  if (!picked.length) add(FALLBACK_TITLE[locale](1), sentences[0]!, 0);
  if (!picked.length) add(FALLBACK_TITLE[locale](taken.size + 1), sentences[0]!, 0);
  return { knowledgePoints: picked.map((p) => p.point) };
}
