import { Jieba } from "@node-rs/jieba";
import { dict, idf } from "@node-rs/jieba/dict.js";
import { STOP_ZH } from "./stopwords";
import type { Candidate } from "./candidate";

/** jieba's part-of-speech tags of nouns: common, proper (person, place, organisation, other), verbal and Latin words (ATP). */
const NOUN = new Set(["n", "nz", "nr", "nrt", "nrfg", "ns", "nt", "nw", "vn", "an", "ng", "eng"]);
/** A noun phrase is at most this many words of jieba's (叶绿体 基质; 二氧化碳 浓度). */
const MAX_WORDS = 3;

let jieba: Jieba | null = null;
let idfTable: Map<string, number> | null = null;
let idfMedian = 0;

/** The segmenter and its dictionary, built on first use and then kept for the process. */
function segmenter(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

/** jieba's inverse document frequencies (a word's rarity in a general corpus); unknown words get the median. */
export function inverseFrequency(word: string): number {
  if (!idfTable) {
    const table = new Map<string, number>();
    for (const line of Buffer.from(idf).toString("utf8").split("\n")) {
      const at = line.lastIndexOf(" ");
      if (at > 0) table.set(line.slice(0, at), Number(line.slice(at + 1)));
    }
    const sorted = [...table.values()].sort((a, b) => a - b);
    idfMedian = sorted[Math.floor(sorted.length / 2)] ?? 10;
    idfTable = table;
  }
  return idfTable.get(word) ?? idfMedian;
}

/** A word jieba tags as a noun but that opens with a generic verb (利用光) is a verb phrase. */
const VERB_FIRST = /^(利用|使用|发生|产生|进行|通过|需要|包括|成为|称为|叫做|具有)/;

const isNounWord = (w: { word: string; tag: string }) =>
  NOUN.has(w.tag) &&
  !STOP_ZH.has(w.word) &&
  !VERB_FIRST.test(w.word) &&
  (/^\p{Script=Han}+$/u.test(w.word) ? true : /^[A-Za-z][A-Za-z0-9+-]*$/.test(w.word));

/** An ordinal (第一, 第三) joins the nouns around it: 牛顿第一定律 is one term, never 牛顿 and 定律. */
const isOrdinal = (w: { word: string; tag: string }) => w.tag === "m" && /^第[一二三四五六七八九十]+$/u.test(w.word);

/**
 * Noun phrases of Chinese text: jieba's words tagged as nouns, and runs of up to three adjacent
 * nouns joined (叶绿体基质, 卡尔文循环), an ordinal between two nouns included (牛顿第一定律). Each occurrence is a candidate, with its position in the
 * text (in words) and its rarity (the mean of its words' inverse frequencies).
 */
export function chineseCandidates(text: string): Candidate[] {
  const words = segmenter().tag(text, true);
  const out: Candidate[] = [];
  let run: { word: string; tag: string }[] = [];
  const flush = (at: number) => {
    for (let i = 0; i < run.length; i++)
      for (let j = i + 1; j <= Math.min(run.length, i + MAX_WORDS); j++) {
        const parts = run.slice(i, j);
        if (isOrdinal(parts[0]!) || isOrdinal(parts[parts.length - 1]!)) continue;
        const surface = parts.map((p) => p.word).join("");
        // A lone character is rarely a term (光, 水), nor a lone Latin letter.
        if ([...surface].length < 2) continue;
        const rarity = parts.reduce((s, p) => s + inverseFrequency(p.word), 0) / parts.length;
        out.push({ surface, key: surface.toLowerCase(), at: at - run.length + i, words: parts.length, rarity });
      }
    run = [];
  };
  words.forEach((w, i) => {
    if (isNounWord(w) || (isOrdinal(w) && run.length && words[i + 1] && isNounWord(words[i + 1]!))) run.push(w);
    else flush(i);
  });
  flush(words.length);
  return out;
}
