import { PASSAGE_MAX, type KpExtraction, type KpExtractionParams } from "./schema";
import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import { JobFailure } from "../../pipeline/errors";
import { clip, norm } from "../shared/text";

type Point = KpExtraction["knowledgePoints"][number];
/** A piece of the material: `text` is an exact substring of it, `heading` the section it sits under. */
type Sentence = { text: string; heading: string | null };

const TERMS_PER_POINT = 5;

// Words that carry no topic: English function words (short ones are dropped by length anyway) and
// the commonest Chinese particles, pronouns and verbs the word segmenter keeps whole.
const STOP = new Set(
  (
    "about above after again against also although among another because been before being below between both " +
    "cannot could does doing down during each either every from further have having here into itself just more " +
    "most much must neither only other over same should some such than that their them then there these they " +
    "this those through under until upon very what when where which while whom whose will with within without " +
    "would your yours each many often usually called known used uses using make makes made " +
    "的 了 是 在 和 与 及 或 也 都 就 而 但 并 其 这 那 这个 那个 这些 那些 一个 一种 我们 你们 他们 它们 可以 " +
    "因为 所以 如果 通过 进行 以及 其中 没有 不是 就是 还是 可能 已经 之间 之后 之前 对于 关于 由于 他 她 它 我 你 中的 为 把 被 从 向 到 对 让 使"
  ).split(" "),
);

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
  const segmenter = new Intl.Segmenter("und", { granularity: "sentence" });
  const out: Sentence[] = [];
  let heading: string | null = null;
  lines.forEach((line, i) => {
    const h = headingOf(
      line,
      lines.slice(i + 1).find((l) => l.trim()),
    );
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

/** Content words: ICU's word segmenter (dictionary-based for Chinese), minus stop words and short Latin words. */
export function termsOf(text: string): string[] {
  const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  const terms: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    if (!isWordLike) continue;
    const w = segment.trim();
    const han = HAN.test(w);
    if (han ? codePoints(w).length < 2 : w.length < 4) continue;
    if (/^\p{N}+$/u.test(w) || STOP.has(w.toLowerCase())) continue;
    terms.push(w);
  }
  return terms;
}

/** How often each content word occurs in the text (compared lower-cased), first occurrence kept for its spelling. */
function frequencies(sentences: Sentence[]) {
  const count = new Map<string, { word: string; n: number; first: number }>();
  let order = 0;
  for (const s of sentences)
    for (const w of termsOf(s.text)) {
      const key = w.toLowerCase();
      const hit = count.get(key);
      if (hit) hit.n++;
      else count.set(key, { word: w, n: 1, first: order++ });
    }
  return count;
}

/** The sentence's own terms, most frequent in the whole material first (first seen on ties), distinct. */
function rankedTerms(text: string, freq: ReturnType<typeof frequencies>): string[] {
  const seen = new Set<string>();
  return termsOf(text)
    .filter((w) => !seen.has(w.toLowerCase()) && seen.add(w.toLowerCase()))
    .sort((a, b) => {
      const x = freq.get(a.toLowerCase())!;
      const y = freq.get(b.toLowerCase())!;
      return y.n - x.n || x.first - y.first;
    });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The term, or the two-word phrase it starts in `sentence` when the phrase recurs in the material ("carbon dioxide"), capitalised. */
function phraseOf(term: string, sentence: string, material: string): string {
  const next = new RegExp(`${escape(term)}\\s+([\\p{L}\\p{N}-]+)`, "u").exec(sentence)?.[1];
  const phrase = next && !STOP.has(next.toLowerCase()) && next.length >= 4 ? `${term} ${next}` : null;
  const count = (p: string) => material.toLowerCase().split(p.toLowerCase()).length - 1;
  return capitalise(phrase && count(phrase) >= 2 ? phrase : term);
}
const capitalise = (w: string) => (HAN.test(w) ? w : w.charAt(0).toUpperCase() + w.slice(1));
/** At most PASSAGE_MAX characters from the start (a prefix of a substring is still a substring), never splitting a character. */
const passageOf = (s: string) => codePoints(s).slice(0, PASSAGE_MAX).join("").trimEnd();
const FALLBACK_TITLE: Record<Locale, (n: number) => string> = { en: (n) => `Point ${n}`, "zh-CN": (n) => `要点 ${n}` };

/**
 * knowledge_point_extraction, without a model: the target material's sections (a heading and its
 * first sentence) first, then its sentences richest in the material's frequent terms, in the
 * material's own order. Every passage is an exact substring of the material; titles never repeat
 * each other nor a knowledge point the material already has. Pure: the same snapshot and params
 * give the same points.
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
  const sentences = sentencesOf(material.content);
  if (!sentences.length) sentences.push({ text: material.content.trim(), heading: null });
  const freq = frequencies(sentences);
  const taken = new Set(snapshot.knowledgePoints.filter((k) => k.materialId === material.id).map((k) => norm(k.title)));
  const picked: { point: Point; at: number }[] = [];

  const add = (title: string, s: Sentence, at: number) => {
    const t = clip(title, 200);
    if (picked.length >= params.maxPoints || taken.has(norm(t))) return;
    taken.add(norm(t));
    const keyTerms = rankedTerms(s.text, freq).slice(0, TERMS_PER_POINT);
    picked.push({
      at,
      point: {
        title: t,
        summary: clip(s.text, 300),
        keyTerms: keyTerms.length ? keyTerms : [t.slice(0, 60)],
        passage: passageOf(s.text),
      },
    });
  };

  // 1. Each heading, with the first sentence under it.
  sentences.forEach((s, i) => {
    if (s.heading && sentences.findIndex((x) => x.heading === s.heading) === i) add(s.heading, s, i);
  });
  // 2. The sentences that carry the most of the material's recurring terms, titled by their
  // leading recurring term (or the two-word phrase it starts, when that recurs too).
  const recurring = (w: string) => freq.get(w.toLowerCase())!.n >= 2;
  const score = (s: Sentence) =>
    rankedTerms(s.text, freq).reduce((sum, w) => sum + freq.get(w.toLowerCase())!.n - 1, 0);
  const byWeight = sentences
    .map((s, i) => ({ s, i, w: score(s) }))
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w || a.i - b.i);
  const sections = picked.length;
  for (const { s, i } of byWeight) {
    if (picked.some((p) => p.at === i)) continue;
    const title = rankedTerms(s.text, freq)
      .filter(recurring)
      .map((w) => phraseOf(w, s.text, material.content))
      // Not a title already, nor a word of one ("Dioxide" once "Carbon dioxide" is a point).
      .find((t) => ![...taken].some((x) => x.includes(norm(t))));
    if (title) add(title, s, i);
  }
  // Sections first, in the material's order, then the other points in the material's order.
  const rest = picked.splice(sections).sort((a, b) => a.at - b.at);
  picked.push(...rest);
  // 3. A material with no usable term still yields a point.
  if (!picked.length) add(FALLBACK_TITLE[locale](1), sentences[0]!, 0);
  if (!picked.length) add(FALLBACK_TITLE[locale](taken.size + 1), sentences[0]!, 0);
  return { knowledgePoints: picked.map((p) => p.point) };
}
