import { norm, type SnapshotContent } from "../../fields";
import { keyTermOf } from "../items";

const QUOTED = /["“‘「『《]([^"”’」』》]{1,300})["”’」』》]/gu;

export type Named = { id: string; index: number; length: number };

/**
 * The knowledge points a sentence names, by title or by its name without a heading's numbering
 * ("一、电流" and "电流"), compared after `norm` (NFKC, lower-case, no spaces by Chinese). Where one
 * name holds another ("电流的方向" holds "电流"), the longer wins. Names shorter than two
 * characters are not looked for.
 */
export function pointsNamed(text: string, snapshot: SnapshotContent): Named[] {
  const hay = norm(text);
  const names = namesOf(snapshot);
  const taken: boolean[] = [];
  const found: Named[] = [];
  for (const { id, n } of names) {
    let from = 0;
    for (;;) {
      const at = hay.indexOf(n, from);
      if (at < 0) break;
      from = at + 1;
      if (!wordEdge(hay, at, n.length)) continue;
      // Points of one name are all named where it stands.
      if (taken.slice(at, at + n.length).some(Boolean)) {
        if (
          found.some((f) => f.index === at && f.length === n.length) &&
          !found.some((f) => f.index === at && f.id === id)
        )
          found.push({ id, index: at, length: n.length });
        continue;
      }
      for (let i = at; i < at + n.length; i++) taken[i] = true;
      found.push({ id, index: at, length: n.length });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

const cache = new WeakMap<SnapshotContent, { id: string; n: string }[]>();
/** Every point's names, longest first (computed once per snapshot). */
function namesOf(snapshot: SnapshotContent) {
  let names = cache.get(snapshot);
  if (!names) {
    names = snapshot.knowledgePoints
      .flatMap((k) => {
        const title = k.title.trim() || k.id;
        return [...new Set([norm(title), norm(keyTermOf(title))])].map((n) => ({ id: k.id, n }));
      })
      .filter(({ n }) => [...n].length >= 2)
      .sort((a, b) => b.n.length - a.n.length);
    cache.set(snapshot, names);
  }
  return names;
}

/** A Latin name matches whole words only ("current" is not in "currently"). */
function wordEdge(s: string, at: number, len: number) {
  const latin = /[a-z0-9]/u;
  const before = s[at - 1];
  const after = s[at + len];
  const first = s[at]!;
  const last = s[at + len - 1]!;
  return !(latin.test(first) && before && latin.test(before)) && !(latin.test(last) && after && /[a-z]/u.test(after));
}

/** The ids a sentence names. */
export const idsNamed = (text: string, snapshot: SnapshotContent) =>
  new Set(pointsNamed(text, snapshot).map((n) => n.id));

/** The text with each named point's name, each given text (descriptions, questions) and each date taken out. */
export function withoutNames(text: string, snapshot: SnapshotContent, quoted: string[] = []): string {
  let s = unquote(norm(text), quoted);
  const named = pointsNamed(s, snapshot);
  for (const n of spans(named).reverse()) s = `${s.slice(0, n.index)}§${s.slice(n.index + n.length)}`;
  return s.replace(/\d{4}-\d{2}-\d{2}(?:[t ][\d:.]+z?)?/gu, "§");
}

/**
 * A free text's clauses, each with the points it names and its text with names, given texts and
 * dates taken out: names are taken out before the text is split, so "Strongest: 1. Resistance"
 * stays one clause.
 */
export function namedClauses(
  text: string,
  snapshot: SnapshotContent,
  quoted: string[],
  split: (s: string) => string[],
): { ids: string[]; text: string }[] {
  let s = unquote(norm(text), quoted);
  const named = pointsNamed(s, snapshot);
  const at = spans(named);
  for (const [j, n] of [...at.entries()].reverse()) s = `${s.slice(0, n.index)}⟦${j}⟧${s.slice(n.index + n.length)}`;
  return split(s).map((c) => ({
    ids: [...new Set([...c.matchAll(/⟦(\d+)⟧/gu)].flatMap((m) => at[Number(m[1])]!.ids))],
    text: c.replace(/⟦\d+⟧/gu, "§").replace(/\d{4}-\d{2}-\d{2}(?:[t ][\d:.]+z?)?/gu, "§"),
  }));
}

/**
 * The text with the snapshot's own texts taken out: each quoted span that is one of them
 * ("Wrong on …: \"q2\""), and each of them of 4 characters or more wherever it stands.
 */
function unquote(normed: string, quoted: string[]): string {
  const given = quoted.map(norm).filter(Boolean);
  const exact = new Set(given);
  let s = normed.replace(QUOTED, (m, inner: string) => (exact.has(norm(inner)) ? "§" : m));
  for (const q of given.filter((q) => q.length >= 4).sort((a, b) => b.length - a.length)) s = s.split(q).join("§");
  return s;
}

/** The places names stand, each once, with every point of that name. */
function spans(named: Named[]): { index: number; length: number; ids: string[] }[] {
  const by = new Map<number, { index: number; length: number; ids: string[] }>();
  for (const n of named) {
    const span = by.get(n.index) ?? { index: n.index, length: n.length, ids: [] };
    span.ids.push(n.id);
    by.set(n.index, span);
  }
  return [...by.values()].sort((a, b) => a.index - b.index);
}
