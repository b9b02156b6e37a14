import { PASSAGE_MAX, type KpExtraction, type KpExtractionParams } from "./schema";
import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { JobFailure } from "../../pipeline/errors";
import { clip, norm, occurrence } from "../shared/text";
import { isStopWord, keyTermsOf, TERMS_INPUT_MAX, type Term } from "../shared/terms";
import { counterpartPairs, definitionsIn, headingTopics } from "./signals";
import { summaryOf } from "./summary";
import { titleKey } from "./title-key";

type Point = KpExtraction["knowledgePoints"][number];
/** A piece of the material: `text` is an exact substring of it, `heading` the section it sits under. */
type Sentence = { text: string; heading: string | null; lineStart: boolean };

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

/** A list item's marker at the start of a line: "1. ", "2) ", "(3) ", "- ", "• ". */
const ITEM_MARKER = /^\s*(?:[-*•·]\s+|\d+\s*[.、．)）]\s*|[(（]\s*[一二三四五六七八九十\d]+\s*[)）]\s*)/u;

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
    let lineStart = true;
    // A list item's marker ("1. ", "(2) ") is no sentence: the item's text still opens its line.
    for (const { segment } of segmenter.segment(line.replace(ITEM_MARKER, ""))) {
      const s = segment.trim();
      // Too short to say anything: a stray "Dr." or a list marker.
      if (codePoints(s).length >= (HAN.test(s) ? 6 : 20)) out.push({ text: s, heading, lineStart });
      lineStart = false;
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

/** A proposal before it is chosen: its title, its weight and the sentence it is read from. */
type Candidate = { title: string; score: number; at: number };

/** Weights of the signals (a key term weighs its share of the heaviest key term's score: 0 to 1). */
const WEIGHT = { pair: 2.2, headingUsed: 2, headingOnly: 0.6 } as const;
/** Key terms fill the proposals up to one per sentence of the material (a teacher lists fewer points than a text has nouns). */
const TERMS_PER_SENTENCE = 1;
/** A title as proposals compare it: NFKC, lower case, English words singular ("Ecosystems" is "ecosystem"). */
const keyOf = titleKey;

/** Whether `long` holds `short`: whole words in English, two characters or more in Chinese. */
function holds(long: string, short: string) {
  if (HAN.test(short)) return codePoints(short).length >= 2 && long.includes(short);
  return occurrence(long, short) !== null;
}

/** Where a text writes a topic, or its singular ("Series circuits" as "series circuit"). */
function written(text: string, topic: string): string | null {
  return occurrence(text, topic) ?? (HAN.test(topic) ? null : occurrence(text, topic.replace(/(?<=\p{L}{3})s$/u, "")));
}

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
  if (!sentences.length) sentences.push({ text: content.trim(), heading: null, lineStart: true });
  const terms = keyTermsOf(content);
  // The material's own points are proposed again when the text yields them, under their own
  // titles, so that a second suggestion shows them as already chosen (never drops them).
  const existing = new Map(
    snapshot.knowledgePoints.filter((k) => k.materialId === material.id).map((k) => [keyOf(k.title), k.title.trim()]),
  );
  const taken = new Set<string>();
  const usedAt = (term: string, from = 0) => {
    const i = sentences.findIndex((s, j) => j >= from && written(s.text, term));
    return i >= 0 ? i : sentences.findIndex((s) => written(s.text, term));
  };

  // Every signal of the whole text, then the heaviest chosen: definitions, glossary lines,
  // headings, fixed pairs, then key terms.
  const candidates: Candidate[] = [];
  const aliases = new Set<string>();
  sentences.forEach((s, i) => {
    const { found, aliases: a } = definitionsIn(s.text, s.lineStart);
    for (const x of a) aliases.add(norm(x));
    for (const d of found) candidates.push({ title: d.term, score: d.strength, at: i });
  });
  sentences.forEach((s, i) => {
    if (!s.heading || sentences.findIndex((x) => x.heading === s.heading) !== i) return;
    const topics = headingTopics(s.heading);
    for (const topic of topics) {
      // One topic is read from the section's first sentence; each of several from the sentence that uses it.
      const used = topics.length === 1 && written(content, topic) ? i : usedAt(topic, i);
      const short = HAN.test(topic)
        ? codePoints(topic).length <= 6 && !topic.includes("的")
        : topic.split(" ").length <= 4;
      if (used >= 0)
        candidates.push({
          title: occurrence(s.heading, topic) ?? written(sentences[used]!.text, topic)!,
          score: WEIGHT.headingUsed,
          at: used,
        });
      else if (short && occurrence(s.heading, topic))
        candidates.push({ title: topic, score: WEIGHT.headingOnly, at: i });
    }
  });
  for (const pair of counterpartPairs(content)) {
    const at = usedAt(pair);
    if (at >= 0) candidates.push({ title: pair, score: WEIGHT.pair, at });
  }
  const top = terms[0]?.score ?? 1;
  const chinese = HAN.test(content);
  for (const term of terms) {
    if (term.score < top * TITLE_SHARE) break;
    const using = sentences.map((s, i) => ({ s, i })).filter(({ s }) => occurrence(s.text, term.text));
    // A Latin fragment of a Chinese text (kx of y=kx+b) is no term.
    if (!using.length || (chinese && /^[A-Za-z]{1,2}$/.test(term.text))) continue;
    candidates.push({ title: term.text, score: term.score / top, at: using[0]!.i });
  }

  const strong = (c: Candidate) => c.score > 1;
  const fill = Math.min(params.maxPoints, Math.max(3, Math.ceil(sentences.length * TERMS_PER_SENTENCE)));
  const chosen: (Candidate & { key: string })[] = [];
  candidates.sort((a, b) => b.score - a.score || a.at - b.at);
  for (const c of candidates) {
    const t = norm(c.title);
    if (chosen.length >= (strong(c) ? params.maxPoints : fill)) continue;
    const k = keyOf(c.title);
    if (!t || isStopWord(c.title) || aliases.has(t)) continue;
    // A term held by a chosen one is no new point ("Law" once "Newton's first law" is one), nor a
    // key term that holds one ("直角三角形三边" after "直角三角形"); a definition or a heading may.
    // Nor a pair of topics one of which is chosen ("轮船与排水量" once "排水量" is).
    const parts = headingTopics(c.title).map(keyOf);
    if (
      chosen.some(
        (x) =>
          x.key === k ||
          holds(x.key, k) ||
          (!strong(c) && holds(k, x.key)) ||
          (parts.length > 1 && parts.includes(x.key)),
      )
    )
      continue;
    chosen.push({ ...c, key: k });
  }
  const picked: { point: Point; at: number }[] = [];
  const add = (title: string, s: Sentence, at: number) => {
    const t = clip(existing.get(keyOf(title)) ?? title, 200);
    if (picked.length >= params.maxPoints || taken.has(keyOf(t))) return;
    taken.add(keyOf(t));
    const keyTerms = termsIn(s.text, terms)
      .slice(0, TERMS_PER_POINT)
      .map((k) => clip(k.text, 60));
    picked.push({
      at,
      point: {
        title: t,
        summary: clip(summaryOf(t, s.text), 300),
        keyTerms: keyTerms.length ? keyTerms : [clip(t, 60)],
        passage: passageOf(withNext(s, at)),
      },
    });
  };
  // The passage: the sentence and the next one of its section, when it has one (the summary says it in a line).
  const withNext = (s: Sentence, at: number) => {
    const next = sentences[at + 1];
    if (!next || next.heading !== s.heading || next.lineStart) return s.text;
    const from = content.indexOf(s.text);
    const to = from >= 0 ? content.indexOf(next.text, from + s.text.length) : -1;
    // A substring of the material: the two sentences and what lies between them.
    return to >= 0 && to - from <= PASSAGE_MAX ? content.slice(from, to + next.text.length) : s.text;
  };
  // A key term is read from the first sentence that uses it and no other point's, when there is one.
  const read = new Set(chosen.filter(strong).map((c) => c.at));
  for (const c of chosen) {
    if (strong(c)) continue;
    const free = sentences.findIndex((s, i) => !read.has(i) && occurrence(s.text, c.title));
    if (free >= 0) c.at = free;
    read.add(c.at);
  }
  chosen.sort((a, b) => a.at - b.at);
  for (const c of chosen) add(capitalise(c.title), sentences[c.at]!, c.at);
  // 3. A material with no usable term still yields a point.
  if (!picked.length) add(FALLBACK_TITLE[locale](1), sentences[0]!, 0);
  if (!picked.length) add(FALLBACK_TITLE[locale](taken.size + 1), sentences[0]!, 0);
  return { knowledgePoints: picked.map((p) => p.point) };
}
