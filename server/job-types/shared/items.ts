import { hasCjk, norm, type SnapshotContent } from "../fields";
import { occurrence, sentences, sourceSentences, withoutNumbering, type Kp } from "./text";

/**
 * What the offline quiz and card generators need to test understanding rather than copying: the
 * concept a point names (its title without a heading's numbering), its section of the material,
 * statements made false (a term swapped with a sibling point's, a definition negated or turned
 * into its common confusion) and the options most easily confused with an answer.
 */

export { NUMBERING, withoutNumbering } from "./text";

/** The concept a knowledge point names: its title without a heading's numbering (the title when nothing is left). */
export function conceptOf(kp: Kp): string {
  const t = kp.title.trim();
  return withoutNumbering(t) || t || kp.id;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every occurrence of `term` in `text` (case-insensitive; whole words and their plural in English) replaced by `by`. */
export function replaceAll(text: string, term: string, by: string): string {
  if (!term.trim()) return text;
  // English: the plural too ("chemical bonds" for "chemical bond").
  const [edge, end] = hasCjk(term) ? ["", ""] : ["(?<![\\p{L}\\p{N}])", "(?:e?s)?(?![\\p{L}\\p{N}])"];
  return text.replace(new RegExp(`${edge}${escape(term)}${end}`, "giu"), by);
}

/** Whether `text` names `term` (as `replaceAll` finds it). */
export const names = (text: string, term: string) => !!term.trim() && replaceAll(text, term, "\u0000") !== text;

/** The blank that stands for a hidden term. */
export const BLANK = "_____";

/** A line that is a heading: Markdown `#`, or short, without closing punctuation, and followed by text. */
function isHeading(line: string, next: string | undefined) {
  const t = line.trim();
  if (/^#{1,6}\s/.test(t)) return true;
  return !!t && !!next?.trim() && Array.from(t).length <= 40 && !/[.!?。！？:：;；,，、]$/.test(t);
}

/**
 * The part of the point's material that is about it: the section under a heading that names the
 * concept ("一、电流" for 电流), else the material's sentences that name it, each with the
 * sentences after it that name no other point (at most four), else its description or first
 * related sentence. What a card's back covers.
 */
export function sectionOf(snapshot: SnapshotContent, kp: Kp): string {
  const concept = conceptOf(kp);
  const key = norm(concept);
  const material = snapshot.materials.find((m) => m.id === kp.materialId);
  if (material && key) {
    const lines = material.content.split("\n");
    const next = (i: number) => lines.slice(i + 1).find((l) => l.trim());
    // A heading with a body of its own: a document's title line over "一、压力" is not 压强's section.
    const at = lines.findIndex((l, i) => {
      const after = lines.findIndex((x, j) => j > i && x.trim());
      if (!isHeading(l, next(i)) || (after >= 0 && isHeading(lines[after]!, next(after)))) return false;
      const h = norm(withoutNumbering(l.replace(/^#{1,6}\s+/, "")));
      return h === key || (h.includes(key) && Array.from(key).length >= 2);
    });
    if (at >= 0) {
      const body: string[] = [];
      for (let i = at + 1; i < lines.length && !(body.length && isHeading(lines[i]!, next(i))); i++)
        if (lines[i]!.trim()) body.push(lines[i]!.trim());
      if (body.length) return body.join(hasCjk(concept) ? "" : " ");
    }
  }
  // Without a heading of its own: each sentence that names it, with the sentences after it that
  // name no other point (at most four sentences).
  const others = snapshot.knowledgePoints.filter((k) => k.id !== kp.id).map(conceptOf);
  const all = snapshot.materials
    .filter((m) => (kp.materialId ? m.id === kp.materialId : true))
    .flatMap((m) => sentences(m.content));
  const kept: string[] = [];
  for (let i = 0; i < all.length && kept.length < 4; i++) {
    if (!names(all[i]!, concept)) continue;
    for (let j = i; j < all.length && kept.length < 4; j++) {
      if (j > i && (names(all[j]!, concept) || others.some((o) => names(all[j]!, o)))) break;
      if (!kept.includes(all[j]!)) kept.push(all[j]!);
      i = j;
    }
  }
  if (kept.length) return kept.join(hasCjk(concept) ? "" : " ");
  return kp.description.trim() || sourceSentences(snapshot, kp)[0]?.sentence || concept;
}

/** Words a learner confuses with their opposite: swapping one makes a true statement false. */
const CONFUSIONS_ZH: [string, string][] = [
  ["正比", "反比"],
  ["增大", "减小"],
  ["升高", "降低"],
  ["增加", "减少"],
  ["吸收", "释放"],
  ["大于", "小于"],
  ["正电荷", "负电荷"],
  ["串联", "并联"],
  ["阳离子", "阴离子"],
  ["相等", "不相等"],
  ["相同", "相反"],
  ["自西向东", "自东向西"],
  ["有机物", "无机物"],
  ["显性", "隐性"],
];
const CONFUSIONS_EN: [string, string][] = [
  ["directly", "inversely"],
  ["increases", "decreases"],
  ["increase", "decrease"],
  ["higher", "lower"],
  ["more", "less"],
  ["larger", "smaller"],
  ["absorbs", "releases"],
  ["positive", "negative"],
  ["series", "parallel"],
  ["same", "opposite"],
  ["always", "never"],
  ["dominant", "recessive"],
  ["acid", "base"],
  ["gains", "loses"],
];

/** A statement's first confusable word swapped for its opposite, or null. */
function confuse(statement: string): string | null {
  const pairs = hasCjk(statement) ? CONFUSIONS_ZH : CONFUSIONS_EN;
  let best: { at: number; from: string; to: string } | null = null;
  for (const [a, b] of pairs)
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const found = hasCjk(from)
        ? statement.indexOf(from)
        : (new RegExp(`(?<![\\p{L}])${from}(?![\\p{L}])`, "iu").exec(statement)?.index ?? -1);
      // 不相等 holds 相等: the longer word wins at the same place.
      if (found >= 0 && (!best || found < best.at || (found === best.at && from.length > best.from.length)))
        best = { at: found, from, to };
    }
  if (!best) return null;
  return statement.slice(0, best.at) + best.to + statement.slice(best.at + best.from.length);
}

/** A statement's first verb negated ("是" → "不是", "is" → "is not"), or null. */
function negateVerb(statement: string): string | null {
  if (hasCjk(statement)) {
    const m = /(?<![不没])(叫做|称为|是|能够|能|会|可以|属于|等于|含有|具有)/u.exec(statement);
    return m ? `${statement.slice(0, m.index)}不${statement.slice(m.index)}` : null;
  }
  const m = /\b(is|are|was|were|can|will|does|do|has|have)\b(?!\s+not\b)/iu.exec(statement);
  if (!m) return null;
  const w = m[1]!;
  const negated = /^(can)$/i.test(w)
    ? `${w}not`
    : /^has$/i.test(w)
      ? "does not have"
      : /^have$/i.test(w)
        ? "do not have"
        : `${w} not`;
  return statement.slice(0, m.index) + negated + statement.slice(m.index + w.length);
}

/**
 * A true statement made false without a sibling: a confusable word swapped for its opposite
 * (正比 → 反比, increases → decreases), else its first verb negated (叫做 → 不叫做, is → is not).
 */
export function negate(statement: string): string | null {
  return confuse(statement) ?? negateVerb(statement);
}

/**
 * A true statement about `concept` made false by naming a sibling point's concept in its place
 * ("电荷的定向移动形成电流" → "…形成电压"), or null when the statement does not name it.
 */
export function swapConcept(statement: string, concept: string, sibling: string): string | null {
  // A sibling that holds the concept (显性基因 for 基因) would leave the true statement inside the false one.
  if (!names(statement, concept) || names(statement, sibling) || norm(sibling).includes(norm(concept))) return null;
  return replaceAll(statement, concept, sibling);
}

/** How much two terms share: characters in Chinese, words in English (串联电路 ~ 并联电路, series circuit ~ parallel circuit). */
function shared(a: string, b: string) {
  const parts = (s: string) =>
    hasCjk(s)
      ? Array.from(s.replace(/\s+/g, ""))
      : s
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .filter(Boolean);
  const x = new Set(parts(a));
  return parts(b).filter((p) => x.has(p)).length;
}

/** Options most easily confused with the answer first (those sharing most of it), then in their own order. */
export function byConfusion(answer: string, pool: string[]): string[] {
  return pool
    .map((p, i) => ({ p, i, s: shared(answer, p) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map(({ p }) => p);
}

/** Whether a single-choice question gives its answer away: the stem names the point's concept, and so does the answer. */
export function givesAway(stem: string, answer: string, concept: string) {
  const k = norm(concept);
  return Array.from(k).length >= 2 && norm(stem).includes(k) && norm(answer).includes(k);
}

/** A sentence that names the concept, when the point's statement does not. */
export function namingSentence(snapshot: SnapshotContent, kp: Kp, skip = 0): string | null {
  const concept = conceptOf(kp);
  return (
    sourceSentences(snapshot, kp)
      .map((s) => s.sentence)
      .filter((s) => occurrence(s, concept))[skip] ?? null
  );
}

/** Whether a term is the point's name or a word of it: a blank that hides it gives nothing to think about. */
export function inName(term: string, concept: string): boolean {
  const [t, c] = [norm(term), norm(concept)];
  return !!t && !!c && (c.includes(t) || t.includes(c));
}

/**
 * Whether a text is a statement a learner can judge true or false: not a point's name nor a heading
 * of its material, and long enough to say something (8 Chinese characters, 4 English words).
 */
export function isStatement(text: string, snapshot: SnapshotContent): boolean {
  const t = norm(text.replace(/[。.！!？?]$/u, ""));
  if (!t) return false;
  const names = snapshot.knowledgePoints.flatMap((k) => [norm(k.title), norm(conceptOf(k))]);
  const headings = snapshot.materials.flatMap((m) =>
    m.content
      .split("\n")
      .filter((l, i, all) =>
        isHeading(
          l,
          all.slice(i + 1).find((x) => x.trim()),
        ),
      )
      .map((l) => norm(withoutNumbering(l.replace(/^#{1,6}\s+/, "")))),
  );
  if (names.includes(t) || headings.includes(t)) return false;
  return hasCjk(text)
    ? Array.from(text.replace(/[^\p{Script=Han}]/gu, "")).length >= 8
    : text.trim().split(/\s+/).length >= 4;
}
