import { hasCjk, norm } from "../fields";
import { sentences } from "./text";

/**
 * What a material says that lets a question test understanding rather than recognition: its
 * causal sentences (因为…所以…, 由于…, …因此…, because, so, therefore), split into the cause and
 * what it explains, and the misconceptions it states in order to refute them ("有人认为…，这是错误的",
 * "A common misconception is that …"). Pure.
 */

export type Cause = { sentence: string; cause: string; effect: string; masked: string };
export type Misconception = { claim: string; refutation: string };

/** A clause long enough to say something: 4 Chinese characters, 3 English words. */
const enough = (s: string) =>
  hasCjk(s) ? Array.from(s.replace(/\s/g, "")).length >= 4 : s.trim().split(/\s+/).length >= 3;
const trim = (s: string) => s.replace(/^[\s,，;；:：]+|[\s,，;；:：。.!?！？]+$/gu, "").trim();

const ZH_CAUSES: { re: RegExp; cause: number; effect: number }[] = [
  { re: /^(.*?)(?:因为)(.+?)[，,](?:所以|因此|因而)(.+)$/u, cause: 2, effect: 3 },
  { re: /^(.*?)(?:由于)(.+?)[，,](?:所以|因此|因而)?(.+)$/u, cause: 2, effect: 3 },
  { re: /^()(.+)[，,](?:所以|因此|因而)(.+)$/u, cause: 2, effect: 3 },
  { re: /^()(.+?)是因为(.+)$/u, cause: 3, effect: 2 },
];
const EN_CAUSES: { re: RegExp; cause: number; effect: number }[] = [
  { re: /^()Because (.+?), (.+)$/iu, cause: 2, effect: 3 },
  { re: /^()(.+?),? because (.+)$/iu, cause: 3, effect: 2 },
  { re: /^()(.+), so (?!that\b)(.+)$/iu, cause: 2, effect: 3 },
  { re: /^()(.+?)[;,] therefore,? (.+)$/iu, cause: 2, effect: 3 },
];

/** What a refutation says after it calls the claim wrong ("…，这是错误的：物体浸没后，…所以…"). */
const REFUTED =
  /^(.*?(?:这是错误的|这是不对的|这种说法是错误的|其实不对|this is (?:wrong|not true))[：:，,]?\s*)(.+)$/iu;

/**
 * The cause a sentence states, with the sentence its cause hidden ("_____，所以能漂浮在水面上。").
 * A refutation's reason counts ("这是错误的：…，所以…", "This is not true, because …"), with the
 * sentence before it when it opens with "This"/"这" so that the question says what is refuted.
 */
export function causeOf(sentence: string, previous = ""): Cause | null {
  const zh = hasCjk(sentence);
  const refuted = REFUTED.exec(sentence);
  const [lead, body] = refuted && zh ? [refuted[1]!, refuted[2]!] : ["", sentence];
  for (const { re, cause, effect } of zh ? ZH_CAUSES : EN_CAUSES) {
    const m = re.exec(body);
    if (!m) continue;
    const c = trim(m[cause]!);
    const e = trim(m[effect]!);
    if (!enough(c) || (!enough(e) && !/^(?:this|it)\b/iu.test(e))) continue;
    // The claim refuted is never the cause ("有人认为…越大，这是错误的").
    if (/有人认为|以为|misconception|many people think/iu.test(c)) continue;
    const at = body.indexOf(c);
    if (at < 0) continue;
    const masked = `${lead}${body.slice(0, at)}_____${body.slice(at + c.length)}`;
    const context = /^(?:this|it|that)\b|^这|^它/iu.test(masked) && previous ? `${previous}${zh ? "" : " "}` : "";
    if (!context && /not true|wrong/iu.test(e)) continue;
    return { sentence: `${context}${sentence}`, cause: c, effect: e, masked: `${context}${masked}` };
  }
  return null;
}

export const causesIn = (text: string): Cause[] => {
  const all = sentences(text);
  return all.map((s, i) => causeOf(s, all[i - 1])).filter((c): c is Cause => !!c);
};

const ZH_WRONG = [
  /(?:有人|有些人|很多人|不少人|许多人)(?:认为|以为)(.+?)[，,](?:这是错误的|这种说法是错误的|其实不对|其实|但|这是不对的)/u,
  /误认为(.+?)[，。,]/u,
];
const EN_WRONG = [
  /(?:A common misconception is that|It is a common misconception that)\s+(.+?)\.(?:\s|$)/iu,
  /Many people (?:think|believe)(?: that)?\s+(.+?), but\b/iu,
  /It is (?:not true|wrong to think) that\s+(.+?)[.,]/iu,
];

/** The misconceptions a text states to refute, each with the sentence that refutes it. */
export function misconceptionsIn(text: string): Misconception[] {
  const out: Misconception[] = [];
  const all = sentences(text);
  all.forEach((s, i) => {
    for (const re of hasCjk(s) ? ZH_WRONG : EN_WRONG) {
      const m = re.exec(s);
      if (!m || !enough(m[1]!)) continue;
      const claim = trim(m[1]!);
      // The refutation: the rest of the sentence after the claim, or the next sentence.
      const rest = trim(s.slice(s.indexOf(m[0]) + m[0].length));
      const refutation = enough(rest) ? s : `${s}${hasCjk(s) ? "" : " "}${all[i + 1] ?? ""}`.trim();
      if (!out.some((o) => norm(o.claim) === norm(claim))) out.push({ claim: sentenceCase(claim), refutation });
    }
  });
  return out;
}

/** An English claim as a statement of its own: a capital and a full stop; a Chinese one with 。. */
function sentenceCase(claim: string) {
  if (hasCjk(claim)) return claim.endsWith("。") ? claim : `${claim}。`;
  const c = claim.charAt(0).toUpperCase() + claim.slice(1);
  return /[.!?]$/.test(c) ? c : `${c}.`;
}
