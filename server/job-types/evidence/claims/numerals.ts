import Nzh from "nzh";

/**
 * A sentence with every number written as digits, whatever form it came in, so one set of
 * patterns reads every claim: full-width digits ("４", by NFKC), Chinese numerals ("四" → 4,
 * "十二" → 12, "两" → 2, "百分之四十" → 40%, "三成" → 30%, "一半" → 50%, "四分之三" → "3 of 4"),
 * English words ("four" → 4, "forty-two" → 42, "forty percent" → 40%, "half" → 50%, "once" → 1
 * time), fractions ("3/4" and "three out of four" → "3 of 4"). Lower-cased, single-spaced.
 *
 * Chinese numerals are read with nzh (a maintained parser of 一百零五-style numerals); a Chinese
 * numeral counts only where it counts something — before a measure word (次 张 个 道 题 …), in a
 * percentage or a fraction — so "一切", "统一", "第一" stay words. English number words are
 * read here (a dozen words and their compounds; the npm parsers for them are unmaintained or pull
 * in a 2016 polyfill); "one" counts only before a counted noun or in "one of four".
 */
export function canonical(text: string): string {
  let s = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/gu, "-")
    .replace(/\s+/gu, " ")
    .replace(/per cent\b/gu, "percent")
    .replace(/(\d),(?=\d{3}\b)/gu, "$1");
  s = chinese(s);
  s = english(s);
  return s
    .replace(/(\d+(?:\.\d+)?) ?percent\b/gu, "$1%")
    .replace(/(\d+) ?(?:out of|\/) ?(\d+)(?![\d/])/gu, "$1 of $2")
    .replace(/\s+/gu, " ")
    .trim();
}

const CN = "零〇一二两俩三四五六七八九十百千万";
const CN_RUN = `[${CN}]+`;
/** After a Chinese numeral, the words that make it a count. */
const MEASURE = "次|张|个|道|题|天|遍|回|项|条|分钟|小时|周|星期|秒|门|节|名|位|人|组|轮";

/** nzh reads 二 but not 两/俩, and 〇 as 零. */
export function chineseValue(run: string): number | null {
  const plain = run.replace(/[两俩]/gu, "二").replace(/〇/gu, "零");
  if (!/^[零一二三四五六七八九十百千万]+$/u.test(plain)) return null;
  // A digit-by-digit run ("二〇二六") is a year or a code, not a count.
  if (plain.length > 1 && !/[十百千万]/u.test(plain)) return null;
  const n = Number(Nzh.cn.decodeS(plain));
  return Number.isFinite(n) ? n : null;
}

function chinese(s: string): string {
  const v = (run: string) => chineseValue(run);
  return (
    s
      // 百分之四十 → 40%; 百分之 40 → 40%
      .replace(new RegExp(`百分之\\s*(${CN_RUN}|\\d+(?:\\.\\d+)?)`, "gu"), (m, n: string) => {
        const x = /\d/u.test(n) ? Number(n) : v(n);
        return x === null ? m : `${x}%`;
      })
      // 四分之三 → 3 of 4
      .replace(new RegExp(`(${CN_RUN}|\\d+)\\s*分之\\s*(${CN_RUN}|\\d+)`, "gu"), (m, d: string, n: string) => {
        const den = /\d/u.test(d) ? Number(d) : v(d);
        const num = /\d/u.test(n) ? Number(n) : v(n);
        return den === null || num === null ? m : `${num} of ${den}`;
      })
      // 三成 → 30% (not 成功, 成为, 成绩, 成立 …)
      .replace(new RegExp(`(?<!第)(${CN_RUN}|\\d+)\\s*成(?![功为绩立果员就长熟年形])`, "gu"), (m, n: string) => {
        const x = /\d/u.test(n) ? Number(n) : v(n);
        return x === null || x > 10 ? m : `${x * 10}%`;
      })
      .replace(/一半|半数/gu, "50%")
      // 四次, 十二张, 两道题 → 4次, 12张, 2道题 (not 第一次: an ordinal)
      .replace(new RegExp(`(?<![第${CN}])(${CN_RUN})(?=\\s*(?:${MEASURE}))`, "gu"), (m, n: string) => {
        const x = v(n);
        return x === null ? m : String(x);
      })
  );
}

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const WORD = `(?:${[...Object.keys(UNITS), ...Object.keys(TENS), "hundred", "thousand"].join("|")})`;
/** A run of number words: "forty-two", "one hundred and five", "two thousand". */
const WORD_RUN = new RegExp(`\\b${WORD}(?:(?:-| | and )${WORD})*\\b`, "gu");
/** The nouns after which "one" is a count ("one answer", "one of four"). */
const COUNTED =
  /^ (?:(?:more|single|wrong|incorrect|correct|right|due|new|forgotten|failed) )?(?:answers?|reviews?|cards?|times?|questions?|attempts?|mistakes?|errors?|lapses?|days?|minutes?|hours?|weeks?|of \d|of (?:the |her |his |their |its )?(?:last |latest |recent )?\d|out of|percent|%)/u;

/** The value of a run of English number words, or null ("and" joins hundreds and units). */
export function englishValue(run: string): number | null {
  let total = 0;
  let current = 0;
  for (const w of run.split(/[- ]/u).filter((x) => x && x !== "and")) {
    if (w in UNITS) current += UNITS[w]!;
    else if (w in TENS) current += TENS[w]!;
    else if (w === "hundred") current = (current || 1) * 100;
    else if (w === "thousand") {
      total += (current || 1) * 1000;
      current = 0;
    } else return null;
  }
  return total + current;
}

function english(s: string): string {
  return s
    .replace(/\bonce\b/gu, "1 time")
    .replace(/\btwice\b/gu, "2 times")
    .replace(/\bthrice\b/gu, "3 times")
    .replace(/\b(?:a |one )?half\b/gu, "50%")
    .replace(WORD_RUN, (m, offset: number, all: string) => {
      const x = englishValue(m);
      if (x === null) return m;
      if (m === "one" && !COUNTED.test(all.slice(offset + m.length).replace(/^ one\b/u, ""))) return m;
      return String(x);
    })
    .replace(
      /\bno (?=(?:wrong|incorrect|correct|right|due)? ?(?:answers?|reviews?|cards?|mistakes?|errors?)\b)/gu,
      "0 ",
    )
    .replace(/\bnone of (\d+)/gu, "0 of $1")
    .replace(/\ball (\d+) of (\d+)/gu, "$2 of $2");
}

/** The numbers of a sentence (after `canonical`), with what follows each. */
export type NumberToken = { value: number; percent: boolean; index: number; length: number };
export function numbersIn(canon: string): NumberToken[] {
  return [...canon.matchAll(/(?<![\d.a-z_])(\d+(?:\.\d+)?)(?![a-z\d_])(\s?%)?/gu)].map((m) => ({
    value: Number(m[1]),
    percent: !!m[2],
    index: m.index!,
    length: m[0].length,
  }));
}
