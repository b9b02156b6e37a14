import type { SnapshotContent } from "../fields";
import { hasCjk, norm } from "../fields";
import { sentences, withoutNumbering, type Kp } from "../shared/text";

/**
 * A free question's model answer comes from the material, and must say what the point is: the
 * point's passage is the text under a heading that names it, else the material's sentences that
 * name its distinctive words (a word of its title found in at most half of the material's
 * sentences: "物体的浮沉条件" is found by 浮沉 and 条件, not by 物体, which every sentence has).
 */
export function pointPassage(snapshot: SnapshotContent, kp: Kp): string[] {
  const material = kp.materialId ? snapshot.materials.find((m) => m.id === kp.materialId) : undefined;
  if (!material) return [];
  return underHeading(material.content, kp.title) ?? namingSentences(material.content, kp.title);
}

/** A short line without a sentence's end: a heading. */
const isHeading = (line: string) =>
  line.length > 0 && [...line].length <= 40 && !/[。！？；.!?;，,：:]$/u.test(line.trim()) && !/[。！？]/u.test(line);

function underHeading(content: string, title: string): string[] | null {
  const lines = content.split(/\n/).map((l) => l.replace(/^#+\s*/, "").trim());
  const at = lines.findIndex((l) => isHeading(l) && norm(withoutNumbering(l)) === norm(withoutNumbering(title)));
  if (at < 0) return null;
  const body: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (isHeading(line)) {
      if (body.length) break;
      continue;
    }
    if (line) body.push(line);
  }
  const text = body.join("\n").trim();
  return text ? [text] : null;
}

let segmenter: Intl.Segmenter | undefined;
/** A title's words: Chinese words of two characters or more, other words of four letters or more. */
function titleWords(title: string): string[] {
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  return [...segmenter.segment(title)]
    .filter((w) => w.isWordLike)
    .map((w) => w.segment.toLowerCase())
    .filter((w) => (hasCjk(w) ? [...w].length >= 2 : w.length >= 4));
}

function namingSentences(content: string, title: string): string[] {
  const all = sentences(content);
  const words = titleWords(title);
  const found = (w: string) => all.filter((s) => s.toLowerCase().includes(w)).length;
  const distinctive = words.filter((w) => {
    const n = found(w);
    return n > 0 && (n <= all.length / 2 || words.length === 1);
  });
  if (!distinctive.length) return [];
  const score = (s: string) => distinctive.filter((w) => s.toLowerCase().includes(w)).length;
  const best = Math.max(...all.map(score));
  return best > 0 ? all.filter((s) => score(s) === best) : [];
}

/** Pieces a text is compared by: character pairs of Chinese, words of other scripts. */
function pieces(s: string): string[] {
  const t = s.normalize("NFKC").toLowerCase();
  const cjk = [...t.replace(/[^\p{Script=Han}]+/gu, " ").split(" ")].flatMap((run) =>
    [...run].slice(1).map((c, i) => [...run][i] + c),
  );
  const latin = t
    .replace(/\p{Script=Han}+/gu, " ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3);
  return [...cjk, ...latin];
}

/** At least this share of a model answer's pieces is in the passage. */
export const SUPPORT = 0.6;

/** The model answer says what the passage says: most of its pieces are the passage's. */
export function supported(answer: string, passage: readonly string[]): boolean {
  const own = pieces(answer);
  if (!own.length || !passage.length) return false;
  const source = new Set(pieces(passage.join("\n")));
  return own.filter((p) => source.has(p)).length / own.length >= SUPPORT;
}

/**
 * The model answer of the point's free question: its description when the passage supports it
 * (or when there is no passage to check it by: no material, or one that never names the point),
 * else the passage itself; null when there is neither.
 */
export function modelAnswer(snapshot: SnapshotContent, kp: Kp): string | null {
  const description = kp.description.trim();
  const passage = pointPassage(snapshot, kp);
  if (description && (!passage.length || supported(description, passage))) return description;
  if (!passage.length) return null;
  const cjk = hasCjk(passage[0]!);
  return passage.join(cjk ? "" : " ").replace(/\s*\n\s*/g, cjk ? "" : " ");
}
