import { graphemes, hasCjk, type SnapshotContent } from "../fields";
import { keyTermsOf } from "./terms";
import { HEADING_NUMBER } from "../evidence/items";

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Cuts to a schema's length limit (in graphemes, as the schemas count) on a grapheme boundary —
 * never inside a surrogate pair or an emoji sequence — and never leaves an empty string.
 */
export function clip(s: string, max: number, fallback = "—") {
  const t = s.replace(/\s+/g, " ").trim();
  if (!t) return fallback;
  if (t.length <= max || graphemes(t) <= max) return t;
  let kept = "";
  let n = 0;
  for (const { segment } of graphemeSegmenter.segment(t)) {
    if (++n > max - 1) break;
    kept += segment;
  }
  return `${kept.trimEnd()}…`;
}

/** Sentences this short say too little to quiz on: 20 graphemes of English, 8 of Chinese (a character is a word or most of one). */
const MIN_SENTENCE = { latin: 20, cjk: 8 } as const;

/** The API's comparison (NFKC, case, spaces, CJK): a text the generator thinks new is new to the quality rules too. */
export { norm } from "../fields";

/** A heading's numbering at the start of a line: "一、", "（二）", "第三节", "1.", "1.2 ", "a) ", "IV. ", "Chapter 2:", "- ". */
export const NUMBERING =
  /^\s*(?:[-*•·]\s+|第\s*[一二三四五六七八九十百零〇\d]+\s*[章节课单元部分篇]\s*[:：、.．]?\s*|[一二三四五六七八九十百]+\s*[、.．]\s*|[(（]\s*[一二三四五六七八九十\d]+\s*[)）]\s*|\d+(?:\.\d+)*\s*[、.．)）]?\s+|\d+\s*[、.．)）]\s*|[A-Za-z]\)\s+|[IVX]+\.\s+|(?:chapter|section|unit|lesson|part)\s+\d+(?:\.\d+)*\s*[:.：]?\s*)/iu;

/** A heading or a title without its numbering ("一、电流" → "电流", "1.2 Ohm's law" → "Ohm's law"). */
export const withoutNumbering = (s: string) => s.replace(NUMBERING, "").trim();

/** A list item's marker at the start of a line ("- ", "• ", "1. ", "2) ", "(3) ", "一、"): no part of its sentence. */
const LIST_MARKER =
  /^\s*(?:[-*•·]\s+|\d+\s*[.、．)）]\s+|[(（]\s*[一二三四五六七八九十\d]+\s*[)）]\s*|[一二三四五六七八九十]+\s*[、．]\s*)/u;

/** A text's sentences: after . ! ? and a space, or after 。！？； (Chinese puts no space after them), or a line break; without a list marker. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？；])\s*|\n+/u)
    .map((s) => s.replace(LIST_MARKER, "").trim())
    .filter((s) => graphemes(s) >= (hasCjk(s) ? MIN_SENTENCE.cjk : MIN_SENTENCE.latin));
}

const STOP = new Set([
  "which",
  "where",
  "there",
  "their",
  "these",
  "those",
  "about",
  "other",
  "using",
  "while",
  "would",
  "could",
  "should",
  "after",
  "before",
  "being",
]);

function words(s: string) {
  return s.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
}

const wordSegmenter = new Intl.Segmenter("zh-CN", { granularity: "word" });
/** Chinese words (ICU's dictionary): 2+ characters of Han script, not a number. */
function chineseWords(s: string): string[] {
  return [...wordSegmenter.segment(s)]
    .filter((w) => w.isWordLike && /^\p{Script=Han}{2,}$/u.test(w.segment))
    .map((w) => w.segment);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where `term` occurs in `sentence` (case-insensitive; in English as whole words), as the sentence writes it. */
export function occurrence(sentence: string, term: string): string | null {
  let re = patterns.get(term);
  if (!re) {
    const [edge, end] = hasCjk(term) ? ["", ""] : ["(?<![\\p{L}\\p{N}])", "(?![\\p{L}\\p{N}])"];
    re = new RegExp(`${edge}${escape(term)}${end}`, "iu");
    if (patterns.size >= 512) patterns.clear();
    patterns.set(term, re);
  }
  return re.exec(sentence)?.[0] ?? null;
}
const patterns = new Map<string, RegExp>();

const termCache = new Map<string, string[]>();
/** A text's key terms, best first (`keyTermsOf`), remembered for the last few texts: a quiz asks for the same material many times. */
export function keyTermsOfText(text: string): string[] {
  let terms = termCache.get(text);
  if (!terms) {
    terms = keyTermsOf(text).map((t) => t.text);
    if (termCache.size >= 16) termCache.delete(termCache.keys().next().value!);
    termCache.set(text, terms);
  }
  return terms;
}

/** The key terms of the knowledge point's material (of every material when it has none), best first. */
export function materialTerms(snapshot: SnapshotContent, kp: Kp): string[] {
  const materials = snapshot.materials.filter((m) => (kp.materialId ? m.id === kp.materialId : true));
  return [...new Set(materials.flatMap((m) => keyTermsOfText(m.content)))];
}

/**
 * The word a cloze question hides: the material's best key term that the sentence holds (so the
 * other key terms are the distractors: real terms of the same text); without one, the longest
 * content word of 5+ letters (first on ties), or in Chinese the longest word of 2+ characters
 * that ICU's word segmenter finds (a whole clause is not a word).
 */
export function keyword(sentence: string, terms: readonly string[] = []): string | null {
  for (const t of terms) {
    const found = occurrence(sentence, t);
    if (found) return found;
  }
  if (hasCjk(sentence)) {
    let word: string | null = null;
    for (const w of chineseWords(sentence)) if (!word || w.length > word.length) word = w;
    if (word) return word;
  }
  let best: string | null = null;
  for (const w of words(sentence)) {
    if (w.length < 5 || STOP.has(w.toLowerCase()) || /^\d+$/.test(w)) continue;
    if (!best || w.length > best.length) best = w;
  }
  return best;
}

/** The sentence with every occurrence of the word hidden (one left in view would give the answer away). */
export function cloze(sentence: string, word: string) {
  return sentence.split(word).join("_____");
}

export type Kp = SnapshotContent["knowledgePoints"][number];

/**
 * Sentences of the knowledge point's material (all materials if it has none), most related first;
 * never a line that starts with a heading's numbering ("2.3 Electric current"): a heading is no
 * statement to quiz on or to hide a word in.
 */
export function sourceSentences(snapshot: SnapshotContent, kp: Kp): { sentence: string; materialTitle: string }[] {
  const materials = snapshot.materials.filter((m) => (kp.materialId ? m.id === kp.materialId : true));
  const titleWords = [...words(kp.title).filter((w) => w.length >= 4 && !hasCjk(w)), ...chineseWords(kp.title)].map(
    (w) => w.toLowerCase(),
  );
  const all = materials.flatMap((m) =>
    sentences(m.content)
      .filter((sentence) => !HEADING_NUMBER.test(sentence))
      .map((sentence, i) => ({ sentence, materialTitle: m.title, i })),
  );
  const score = (s: string) => titleWords.filter((w) => s.toLowerCase().includes(w)).length;
  return all
    .map((x, order) => ({ ...x, order, score: score(x.sentence) }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ sentence, materialTitle }) => ({ sentence, materialTitle }));
}

export function materialTitleOf(snapshot: SnapshotContent, kp: Kp) {
  return snapshot.materials.find((m) => m.id === kp.materialId)?.title ?? null;
}

/** What a knowledge point says: its description, else the first related material sentence, else its title. */
export function statementOf(snapshot: SnapshotContent, kp: Kp) {
  return kp.description.trim() || sourceSentences(snapshot, kp)[0]?.sentence || kp.title.trim() || kp.id;
}

export function titleOf(kp: Kp) {
  return kp.title.trim() || kp.id;
}

export function slug(s: string) {
  return (
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 50) || "general"
  );
}
