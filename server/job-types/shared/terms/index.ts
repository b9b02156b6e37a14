import { hasCjk } from "../../fields";
import type { Candidate } from "./candidate";
import { chineseCandidates } from "./chinese";
import { englishCandidates } from "./english";

export { isStopWord } from "./stopwords";
export { singular } from "./english";

/** A term of a text: a noun phrase as the text writes it, how often it occurs, and its weight. */
export type Term = { text: string; key: string; count: number; first: number; score: number };

/**
 * Only this much of a text is read for its terms (in UTF-16 units, 20 000 Chinese characters or
 * about 3 000 English words): a material's topic is stated well before that, and the segmenters
 * take time in proportion to the text.
 */
export const TERMS_INPUT_MAX = 20_000;

/** The spelling most occurrences use; on ties one not capitalised (a word that starts a sentence is not a name). */
function spelling(surfaces: string[]) {
  const n = new Map<string, number>();
  for (const s of surfaces) n.set(s, (n.get(s) ?? 0) + 1);
  const lower = (s: string) => (s === s.toLowerCase() ? 1 : 0);
  return [...n].sort((a, b) => b[1] - a[1] || lower(b[0]) - lower(a[0]))[0]![0];
}

/**
 * A text's key terms, best first: its noun phrases (jieba's words and tags for Chinese,
 * compromise's for English), without stop words, each weighted by how often it occurs, how rare
 * its words are in general text (jieba's inverse document frequencies; for English, whether
 * compromise's lexicon of everyday words knows them) and how early it first occurs. A phrase
 * never seen outside a longer one ("dioxide" in "carbon dioxide") is left out. Pure.
 */
export function keyTermsOf(text: string): Term[] {
  const input = text
    .slice(0, TERMS_INPUT_MAX)
    .replace(/[\0\uD800-\uDFFF]/g, (c, i: number, s: string) => (isPaired(s, i) ? c : " "));
  const candidates: Candidate[] = hasCjk(input) ? chineseCandidates(input) : englishCandidates(input);
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const g = groups.get(c.key);
    if (g) g.push(c);
    else groups.set(c.key, [c]);
  }
  const terms = [...groups].map(([key, g]) => {
    const first = Math.min(...g.map((c) => c.at));
    const early = 1 + 1 / (1 + first / 10);
    const longer = g[0]!.words > 1 ? 1.25 : 1;
    return {
      text: spelling(g.map((c) => c.surface)),
      key,
      count: g.length,
      first,
      score: (1 + Math.log(g.length)) * g[0]!.rarity * early * longer,
    };
  });
  const inside = (t: Term) =>
    terms.some((o) => o !== t && o.count >= t.count && o.key.length > t.key.length && o.key.includes(t.key));
  return terms.filter((t) => !inside(t)).sort((a, b) => b.score - a.score || a.first - b.first);
}

const isPaired = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) return i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
  if (c >= 0xdc00 && c <= 0xdfff) return i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
  return false;
};
