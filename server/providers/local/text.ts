import type { SnapshotContent } from "../../job-types/fields";

/** Cuts to a schema's length limit on a character boundary, never leaving an empty string. */
export function clip(s: string, max: number, fallback = "—") {
  const t = s.replace(/\s+/g, " ").trim();
  if (!t) return fallback;
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}

export const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 20);
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

/** The word a cloze question hides: the longest content word of 5+ letters (first on ties). */
export function keyword(sentence: string): string | null {
  let best: string | null = null;
  for (const w of words(sentence)) {
    if (w.length < 5 || STOP.has(w.toLowerCase()) || /^\d+$/.test(w)) continue;
    if (!best || w.length > best.length) best = w;
  }
  return best;
}

export function cloze(sentence: string, word: string) {
  return sentence.replace(word, "_____");
}

export type Kp = SnapshotContent["knowledgePoints"][number];

/** Sentences of the knowledge point's material (all materials if it has none), most related first. */
export function sourceSentences(snapshot: SnapshotContent, kp: Kp): { sentence: string; materialTitle: string }[] {
  const materials = snapshot.materials.filter((m) => (kp.materialId ? m.id === kp.materialId : true));
  const titleWords = words(kp.title)
    .filter((w) => w.length >= 4)
    .map((w) => w.toLowerCase());
  const all = materials.flatMap((m) =>
    sentences(m.content).map((sentence, i) => ({ sentence, materialTitle: m.title, i })),
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
