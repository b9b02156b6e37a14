import { isStopWord } from "../shared/terms";
import { withoutNumbering } from "../shared/items";

/**
 * The signals a textbook gives for its knowledge points, strongest first: a definition ("这种性质
 * 叫做惯性", "this property is called inertia", "Climate is defined as …"), a glossary line
 * ("Kinetic energy: Ek = ½mv²", "1. 纬度位置：…") and a section heading ("一、电流", "1.2 Ohm's
 * law"). Each gives terms exactly as the text writes them.
 */

const HAN = /\p{Script=Han}/u;
const length = (s: string) => Array.from(s).length;

/** Function words that end an English term ("inertia because …", "a catalyst that …"). */
const FUNCTION_EN = new Set(
  (
    "that which who whom whose because when where while and or but if as is are was were be been being has have " +
    "had with by for from to in on at than this these those it its their they there not also so such then thus " +
    "therefore however each every all any some no one can may must will would should could do does did " +
    "between into through over under about against during within without across along among after before a an the"
  ).split(" "),
);
const DETERMINER_EN = /^(?:the|a|an|its|their|his|her|our|this|these|that|those)\s+/i;
const PRONOUN_EN = /^(?:it|this|that|these|those|they|he|she|we|you|there|which|what)$/i;

export { NUMBERING, withoutNumbering } from "../shared/items";

/** English words of a term, without a leading determiner, cut at the first function word or punctuation. */
function englishTermAhead(text: string, max = 5): string | null {
  const t = text.replace(DETERMINER_EN, "");
  const words: string[] = [];
  for (const m of t.matchAll(/([\p{L}\p{N}][\p{L}\p{N}'’-]*)([^\p{L}\p{N}]*)/gu)) {
    const w = m[1]!;
    if (FUNCTION_EN.has(w.toLowerCase()) || words.length >= max) break;
    words.push(w);
    if (m[2] !== " ") break; // punctuation, or more than a space, ends the term
  }
  while (words.length && /^(?:of|the|a|an)$/i.test(words[words.length - 1]!)) words.pop();
  return words.length ? t.slice(0, t.indexOf(words[words.length - 1]!) + words[words.length - 1]!.length) : null;
}

/** The English words just before `at` (a clause's subject), cut at a function word or punctuation. */
function englishTermBehind(text: string, max = 4): string | null {
  const before = text.trimEnd();
  const words = before.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*(?:\s+[\p{L}\p{N}][\p{L}\p{N}'’-]*)*$/u)?.[0] ?? "";
  const kept: string[] = [];
  for (const w of words.split(/\s+/).reverse()) {
    if (!w || FUNCTION_EN.has(w.toLowerCase()) || DETERMINER_EN.test(`${w} `) || kept.length >= max) break;
    kept.unshift(w);
  }
  if (!kept.length) return null;
  // "An organism's genotype" → "genotype": a common noun's possessive is no part of the term ("Newton's first law" is).
  while (kept.length > 1 && /^\p{Ll}[\p{L}]*['’]s$/u.test(kept[0]!)) kept.shift();
  return kept.join(" ");
}

/** The subject a sentence opens with ("The mass number", "An acid"), when it is a short noun phrase. */
function englishSubject(sentence: string, verbAt: number, max = 5): string | null {
  const subject = withoutNumbering(sentence.slice(0, verbAt)).replace(DETERMINER_EN, "").trim();
  const words = subject.split(/\s+/);
  if (!subject || words.length > max || PRONOUN_EN.test(subject)) return null;
  // "Price elasticity of demand", "checks and balances": "of" and "and" may join a term's words.
  const joins = (w: string, i: number) => /^(?:of|and)$/i.test(w) && i > 0 && i < words.length - 1;
  if (
    words.some(
      (w, i) =>
        !/^[\p{L}\p{N}][\p{L}\p{N}'’-]*$/u.test(w) || (FUNCTION_EN.has(w.toLowerCase()) && i > 0 && !joins(w, i)),
    )
  )
    return null;
  if (FUNCTION_EN.has(words[0]!.toLowerCase())) return null;
  // A variable after the term ("The y-intercept c") is no part of it.
  while (words.length > 1 && /^\p{L}$/u.test(words[words.length - 1]!)) words.pop();
  if (words.length > 1 && /^\p{Ll}[\p{L}]*['’]s$/u.test(words[0]!)) words.shift();
  return words.join(" ");
}

/** A praising or pointing modifier before a term: "著名的阿基米德原理" is 阿基米德原理, "the famous Archimedes' principle" Archimedes' principle. */
const MODIFIER_ZH = /^(?:著名|有名|重要|伟大|经典|所谓|这个|这种|那个|那种|上述|下面)的?(?=\p{Script=Han}{2})/u;
const MODIFIER_EN = /^(?:famous|well-known|important|so-called|celebrated|great)\s+(?=\S)/iu;
export const trimModifier = (term: string) => term.replace(MODIFIER_ZH, "").replace(MODIFIER_EN, "");

/** Chinese characters of a term just after a defining word: up to punctuation, quotes removed. */
function chineseTermAhead(text: string): string | null {
  const t = text.replace(/^[“"《「『]/, "");
  const m = /^[\p{Script=Han}A-Za-z0-9]+/u.exec(t);
  const term = m?.[0].replace(/[的了]$/, "");
  return term && length(term) <= 10 ? term : null;
}

/** The Chinese words just before a defining word, back to the clause's start ("所谓惯性，是指" → none; "天气是指" → 天气). */
function chineseTermBehind(text: string): string | null {
  const clause = text.split(/[，。；：！？、,;:!?\n（(）)“”"]/u).pop() ?? "";
  const term = trimModifier(clause.replace(/^(?:所谓|我们把|我们将|通常把|把|将|一般地)/u, "").trim());
  return /^[\p{Script=Han}A-Za-z0-9]+$/u.test(term) && length(term) >= 2 && length(term) <= 8 ? term : null;
}

export type Definition = { term: string; strength: number };

const ZH_AFTER = /(?:叫做|叫作|称为|称作|统称为|总称为|统称|总称|史称|这就是|这便是|被称为)/gu;
/** "X定义为…" defines X; "把…定义为Y" defines Y. */
const ZH_DEFINED = /定义为/gu;
const ZH_ALIAS = /(?:又称为|又称|又叫做|又叫|也叫做|也叫|也称为|也称|简称|或称|俗称)/gu;
const ZH_BEHIND = /(?:是指|指的是|的定义是|指出|表明)/gu;
const ZH_IS = /即(?=[^，。；]{6,})/gu;
const EN_AFTER =
  /\b(?:is|are|was|were|be|been)\s+(?:often\s+|usually\s+|commonly\s+|sometimes\s+|then\s+)?(?:called|known\s+as|termed|named|referred\s+to\s+as)\s+/giu;
const EN_BARE =
  /(?<!\b(?:also|or|is|are|was|were|be|been|often|usually|commonly|sometimes|then)\s+)\b(?:called|known\s+as|termed)\s+(?!(?:the|a|an|him|her|them|it|for|on|off|up)\b)/giu;
const EN_ALIAS = /\b(?:also|or|sometimes)\s+(?:called|known\s+as|termed|named)\s+/giu;
const EN_BEHIND = /\s(?:is|are)\s+defined\s+as\b|\srefers?\s+to\b/giu;
const EN_OPENS =
  /\s(?:is|are)\s+(?:a|an|the|how)\s|\s(?:states?|says)\s+that\b|\s(?:is|are)\s+defined\s+as\b|\s(?:occurs?|happens?)\s+when\b|\s(?:describes?|measures?)\s+how\b|\smeans\s+that\b/iu;
/** A clause that opens with a short term and says what it is, does or is made of ("宪法是国家的根本法", "太阳系由…组成"). */
const ZH_OPENS =
  /(?:^|[；。])((?!这|那|它|其|此|他|她|我|你|每|各|某|有|该|若|当|如|但|而|则|即|又|也)[\p{Script=Han}A-Za-z0-9]{2,6})(?:是(?![否的])|只能|由(?=[^，。；]{2,}组成|[^，。；]{2,}围成)|用(?=[^，。；]{1,8}表示))/gu;

/**
 * The terms a sentence defines, each with a strength: a term named after "叫做 / 称为 / 史称 /
 * 这就是" or "is called / is known as / (pieces) called", or before "是指 / 即 (a definition)" or
 * "is defined as / refers to", or the subject of "X is a …" / "X states that …" (English) or "X指出", 3; the
 * term of a glossary line ("Kinetic energy: …", "Osmosis – …", "纬度位置：…") or a term set in bold
 * (**osmosis**), 2.5; an item of a list the sentence announces with its count ("汽化有两种方式：
 * 蒸发和沸腾", "three types of rock: igneous, sedimentary and metamorphic"), 2.2. Aliases ("又称", "also
 * called") are returned apart: they name a point already named, never a new one.
 */
export function definitionsIn(sentence: string, lineStart: boolean): { found: Definition[]; aliases: string[] } {
  const found: Definition[] = [];
  const aliases: string[] = [];
  const add = (term: string | null, strength: number) => {
    const t = term?.trim();
    if (t && !isStopWord(t) && !/^\d+$/.test(t)) found.push({ term: t, strength });
  };
  const after = (re: RegExp, read: (rest: string) => string | null, into: (t: string | null) => void) => {
    for (const m of sentence.matchAll(re)) into(read(sentence.slice(m.index + m[0].length)));
  };
  if (HAN.test(sentence)) {
    after(ZH_ALIAS, chineseTermAhead, (t) => t && aliases.push(t));
    after(ZH_AFTER, chineseTermAhead, (t) => add(t, 3));
    for (const m of sentence.matchAll(ZH_OPENS)) {
      const term = trimModifier(m[1]!).replace(/[就也都还则才]$/u, "");
      if (!/[的了在和与或及]/u.test(term)) add(term, 2.4);
    }
    // "就发生日食", "就形成了风": the phenomenon a clause ends on.
    for (const m of sentence.matchAll(/就(?:发生|形成|出现|产生)了?(\p{Script=Han}{2,4})(?=[，。；！？]|$)/gu))
      add(m[1]!, 2.4);
    for (const re of [ZH_BEHIND, ZH_IS])
      for (const m of sentence.matchAll(re)) add(chineseTermBehind(sentence.slice(0, m.index)), 3);
    for (const m of sentence.matchAll(ZH_DEFINED)) {
      const before = sentence.slice(0, m.index);
      add(
        /[把将][^，。；]*$/u.test(before)
          ? chineseTermAhead(sentence.slice(m.index + m[0].length))
          : chineseTermBehind(before),
        3,
      );
    }
    const glossary = lineStart
      ? /^([\p{Script=Han}A-Za-z0-9]{2,8})(?:[：:]|\s*——)/u.exec(withoutNumbering(sentence))
      : null;
    if (glossary) add(glossary[1]!, 2.5);
  } else {
    after(EN_ALIAS, englishTermAhead, (t) => t && aliases.push(t));
    after(EN_AFTER, englishTermAhead, (t) => add(t, 3));
    after(
      EN_BARE,
      (rest) => englishTermAhead(rest, 4),
      (t) => add(t, 3),
    );
    for (const m of sentence.matchAll(EN_BEHIND)) add(englishTermBehind(sentence.slice(0, m.index)), 3);
    const opens = EN_OPENS.exec(sentence);
    if (opens) add(trimModifier(englishSubject(sentence, opens.index) ?? ""), 3);
    const glossary = lineStart
      ? /^([\p{L}][\p{L}\p{N}'’ -]{1,40}?)(?::\s|\s+[–—]\s+)/u.exec(withoutNumbering(sentence))
      : null;
    if (glossary && glossary[1]!.split(" ").length <= 4) add(glossary[1]!, 2.5);
  }
  // The items a sentence announces and lists ("汽化有两种方式：蒸发和沸腾", "three types of rock: igneous, …").
  for (const item of listedItems(sentence)) add(item, 2.2);
  // A term a textbook sets in bold (Markdown **…** or __…__).
  for (const m of sentence.matchAll(/(\*\*|__)([^*_\n]{1,40}?)\1/gu)) add(m[2]!, 2.5);
  const seen = new Set(aliases.map((a) => a.toLowerCase()));
  return { found: found.filter((d) => !seen.has(d.term.toLowerCase()) && seen.add(d.term.toLowerCase())), aliases };
}

const ZH_LIST =
  /(?:有|分为|分成|包括)[两二三四五六七八九十\d]+(?:种|类|个|部分)\p{Script=Han}{0,4}[：:]([^。；！？]+)/u;
/** A division without its count: "可分为类地行星、巨行星和远日行星". */
const ZH_DIVIDED = /(?:可分为|分为|分成)([^。；！？：:，]+)/u;
const EN_LIST =
  /\b(?:two|three|four|five|six|seven|\d+)\s+(?:main\s+)?(?:types|kinds|forms|ways|stages|parts|groups|classes)\s+of\s+[\p{L}\s-]{1,30}?:\s*([^.;]+)/iu;

/** The items of a list a sentence announces with its count ("有两种方式：蒸发和沸腾"), each a short noun phrase. */
export function listedItems(sentence: string): string[] {
  const zh = ZH_LIST.exec(sentence) ?? ZH_DIVIDED.exec(sentence);
  if (zh)
    return zh[1]!
      .split(/[、，,和与及]|以及/u)
      .map((x) => x.trim())
      .filter((x) => /^\p{Script=Han}{1,8}$/u.test(x))
      .filter((x, _, all) => all.length >= 2 && !/[的了]/u.test(x));
  const en = EN_LIST.exec(sentence);
  if (!en) return [];
  const items = en[1]!
    .split(/,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+/u)
    .map((x) => x.trim().replace(DETERMINER_EN, ""))
    .filter((x) => /^[\p{L}][\p{L}'’-]*(?:\s[\p{L}][\p{L}'’-]*){0,3}$/u.test(x));
  // "igneous, sedimentary and metamorphic rock": the last item's noun is every item's.
  const last = items[items.length - 1]?.split(" ") ?? [];
  if (last.length > 1 && items.slice(0, -1).every((x) => !x.includes(" ")))
    return items.map((x, i) => (i < items.length - 1 ? `${x} ${last[last.length - 1]}` : x));
  return items;
}

/** Prefixes that make a term's counterpart (作用力 → 反作用力, action → reaction): the pair is one concept. */
const COUNTERPART = /^(?:反|逆|re-?|counter-?|anti-?)$/iu;
const isCounterpart = (a: string, b: string) =>
  b.toLowerCase().endsWith(a.toLowerCase()) && COUNTERPART.test(b.slice(0, b.length - a.length));

/** The words that join two topics in a heading. */
const JOIN = /\s*(?:和|与|及|以及|、|&|\band\b)\s*/iu;

/**
 * The topics a heading names: its numbering stripped, and "A和B / A与B / A and B" split in two,
 * unless B is A's counterpart (作用力和反作用力, action and reaction: one concept) or the heading
 * is about its topics (it holds 的, "of", "between": "探究电流与电压、电阻的关系"). In English a
 * lone first word shares the second's noun ("Series and parallel circuits" → series circuits,
 * parallel circuits).
 */
export function headingTopics(heading: string): string[] {
  const h = withoutNumbering(heading).replace(/^(?:the)\s+/i, "");
  if (!h) return [];
  // A heading about topics ("探究电流与电压、电阻的关系", "Effects of heat and light") is no list of them.
  if (/的|\b(?:of|on|in|between|how|why|what)\b/iu.test(h)) return [h];
  const parts = h.split(JOIN).filter(Boolean);
  if (parts.length < 2) return [h];
  if (parts.length === 2 && isCounterpart(parts[0]!, parts[1]!)) return [h];
  if (!HAN.test(h) && parts.length === 2 && !parts[0]!.includes(" ") && parts[1]!.includes(" ")) {
    const noun = parts[1]!.split(" ").slice(1).join(" ");
    return [`${parts[0]} ${noun}`, parts[1]!];
  }
  return parts;
}

/** A fixed pair a text writes as one term: "作用力和反作用力", "action and reaction". */
export function counterpartPairs(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(\p{Script=Han}{2,6})(和|与)(\p{Script=Han}{3,8})/gu)) {
    for (let i = 0; i < m[1]!.length - 1; i++) {
      const a = m[1]!.slice(i);
      const b = m[3]!.slice(0, a.length + 1);
      if (isCounterpart(a, b)) out.push(`${a}${m[2]}${b}`);
    }
  }
  for (const m of text.matchAll(/\b([A-Za-z]{3,})\s+and\s+([A-Za-z]{4,})\b/g))
    if (isCounterpart(m[1]!, m[2]!)) out.push(m[0]);
  return out;
}
