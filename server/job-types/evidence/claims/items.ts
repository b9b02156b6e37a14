import { norm, type SnapshotContent } from "../../fields";
import { canonical, numbersIn } from "./numerals";
import { keyTermOf } from "../items";
import { pointsNamed } from "./points";

/** The value a true/false answer or option stands for, or null. */
export function truthOf(answer: string): boolean | null {
  const a = norm(answer);
  if (/^(?:true|t|yes|correct|right|正确|对|是|√|✓)$/u.test(a)) return true;
  if (/^(?:false|f|no|incorrect|wrong|错误|错|否|不正确|×|✗)$/u.test(a)) return false;
  return null;
}

const VERDICT_FALSE = [
  /^(?:false|incorrect|wrong|not true|错误|不正确|错|不对|说法错误)(?:[\s.。:：,，!！;；—-]|$)/u,
  /\b(?:the|this|that) (?:statement|claim|sentence|assertion)(?: above)? is (?:false|incorrect|wrong|not (?:true|correct))\b/u,
  /\b(?:so|therefore|hence|thus),? (?:it|this|the statement|the answer) is (?:false|incorrect|wrong)\b/u,
  /\bthe answer is (?:false|"false")/u,
  /(?:该|这个|此|这一?|题中的?|原)(?:说法|表述|陈述|句话|命题|判断|描述)(?:是)?(?:错误|不正确|错|不对|有误|不成立|站不住)/u,
  /(?:所以|因此|故)(?:该说法|这句话|本题|答案)?(?:是|为)?(?:错误|错的|不正确|不对)/u,
  /答案(?:是|为)[“"「]?(?:错误|错|false)/u,
];
const VERDICT_TRUE = [
  /^(?:true|correct|right|正确|对|说法正确)(?:[\s.。:：,，!！;；—-]|$)/u,
  /\b(?:the|this|that) (?:statement|claim|sentence|assertion)(?: above)? is (?:true|correct|right)\b/u,
  /\b(?:so|therefore|hence|thus),? (?:it|this|the statement|the answer) is (?:true|correct)\b/u,
  /\bthe answer is (?:true|"true")/u,
  /(?:该|这个|此|这一?|题中的?|原)(?:说法|表述|陈述|句话|命题|判断|描述)(?:是)?(?:正确|对的|成立|没有错|没错)/u,
  /(?:所以|因此|故)(?:该说法|这句话|本题|答案)?(?:是|为)?(?:正确|对的)/u,
  /答案(?:是|为)[“"「]?(?:正确|对|true)/u,
];

/** What a true/false explanation says of its statement: true, false, or null when it gives no verdict. */
export function verdictOf(explanation: string): boolean | null {
  const e = norm(explanation);
  const f = VERDICT_FALSE.findIndex((re) => re.test(e));
  const t = VERDICT_TRUE.findIndex((re) => re.test(e));
  if (f >= 0 && t < 0) return false;
  if (t >= 0 && f < 0) return true;
  return null;
}

/** The words of a text a reader would look for in the material: CJK character pairs, Latin words of 3+ letters. */
export function contentWords(text: string): Set<string> {
  const s = norm(text);
  const out = new Set<string>();
  for (const run of s.match(/\p{Script=Han}+/gu) ?? [])
    for (let i = 0; i + 1 < [...run].length; i++) out.add([...run].slice(i, i + 2).join(""));
  for (const w of s.match(/[a-z][a-z'-]{2,}/gu) ?? []) if (!STOP.has(w)) out.add(w.replace(/(?:es|s)$/u, ""));
  return out;
}
const STOP = new Set(
  "the and for that this with from are was were its it's into than then what which who how why when where does did has have had not but all any can one two also each more most such".split(
    " ",
  ),
);

/** The share of the words of `text` found in `source` (1 when `text` has none). */
export function supportOf(text: string, source: string): number {
  const words = contentWords(text);
  if (!words.size) return 1;
  const have = contentWords(source);
  return [...words].filter((w) => have.has(w)).length / words.size;
}

/** The numbers a text states (every form), as values. */
export const numberValues = (text: string) =>
  numbersIn(canonical(text)).map((t) => (t.percent ? t.value / 100 : t.value));

/** The point's own texts: its title, its description and its material. */
export function sourceOf(snapshot: SnapshotContent, kpId: string): string {
  const kp = snapshot.knowledgePoints.find((k) => k.id === kpId);
  if (!kp) return "";
  // A point of no material (or of one not in the snapshot) may draw on every material.
  const own = snapshot.materials.filter((m) => m.id === kp.materialId);
  const materials = own.length ? own : snapshot.materials;
  return [kp.title.trim() || kp.id, kp.description, ...materials.flatMap((m) => [m.title, m.content])].join("\n");
}

/**
 * The other points a text names, and whether it speaks of its own: names it, or quotes its
 * description (another point named inside its own description does not count).
 */
export function othersNamed(text: string, kpId: string, snapshot: SnapshotContent) {
  const kp = snapshot.knowledgePoints.find((k) => k.id === kpId);
  let s = norm(text);
  const description = kp ? norm(kp.description) : "";
  const quotesOwn = description.length >= 4 && s.includes(description);
  if (quotesOwn) s = s.split(description).join("§");
  const named = pointsNamed(s, snapshot);
  // A point whose name is part of this point's title ("Acceleration" in "2.3 Acceleration 2") is not another.
  const ownTitle = kp ? norm(kp.title.trim() || kp.id) : "";
  const nameOf = (id: string) => {
    const k = snapshot.knowledgePoints.find((x) => x.id === id)!;
    return norm(keyTermOf(k.title.trim() || k.id));
  };
  return {
    own: quotesOwn || named.some((n) => n.id === kpId),
    others: [...new Set(named.filter((n) => n.id !== kpId).map((n) => n.id))].filter(
      (id) => !ownTitle.includes(nameOf(id)),
    ),
  };
}

const words = new WeakMap<SnapshotContent, Map<string, Set<string>>>();
/** Each point's words (title and description), computed once per snapshot. */
function pointWords(snapshot: SnapshotContent) {
  let m = words.get(snapshot);
  if (!m) {
    m = new Map(snapshot.knowledgePoints.map((k) => [k.id, contentWords(`${k.title}\n${k.description}`)]));
    words.set(snapshot, m);
  }
  return m;
}

/**
 * The point whose title and description share the most of the text's words, when it is not
 * `kpId` and shares strictly more than `kpId`'s (null otherwise): what a text speaks of.
 */
export function closerPoint(text: string, kpId: string, snapshot: SnapshotContent): string | null {
  // A point with no description has nothing to compare with.
  if (!snapshot.knowledgePoints.find((k) => k.id === kpId)?.description.trim()) return null;
  const own = shareOf(text, kpId, snapshot);
  let best: string | null = null;
  let bestShare = own;
  for (const k of snapshot.knowledgePoints)
    if (k.id !== kpId) {
      const x = shareOf(text, k.id, snapshot);
      if (x > bestShare + 0.1 && x >= 0.5) {
        best = k.id;
        bestShare = x;
      }
    }
  return best;
}

/** The share of the text's words found in a point's title and description. */
export function shareOf(text: string, kpId: string, snapshot: SnapshotContent): number {
  const w = contentWords(text);
  const have = pointWords(snapshot).get(kpId);
  return w.size && have ? [...w].filter((x) => have.has(x)).length / w.size : 0;
}

/** The quoted part of a front ("这段话描述的是哪个概念：“…”？" → "…"), or the whole front. */
export function quotedPart(front: string): string {
  const q = /[“"「『]([^”"」』]{4,})[”"」』]/u.exec(front);
  return q ? q[1]! : front;
}

/**
 * The term the first sentence of a text defines, if it has the form of a definition: "X 叫做 Y",
 * "X 称为 Y", "Y 是 …", "Y is …", "… is called Y".
 */
export function definedTerm(text: string): string | null {
  const first = norm(text).split(/[。.!?！？\n](?:\s|$)|[。！？]/u)[0] ?? "";
  const called = /(?:叫做|叫作|称为|称作|被称为|is called|are called|is known as|are known as)\s*(.+)$/u.exec(first);
  if (called) return called[1]!;
  const subject = /^(.{2,40}?)(?:是指|是|指的是|指| is | are | refers to | means )/u.exec(first);
  return subject ? subject[1]! : null;
}
