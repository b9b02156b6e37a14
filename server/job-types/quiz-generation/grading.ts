import { graphemes, hasCjk } from "../fields";
import type { Quiz } from "./schema";

type Question = Pick<Quiz["questions"][number], "type" | "answer" | "options">;

/**
 * How a question's answer is judged: `choice` (single choice, true/false: the option she picked),
 * `number` (a quantity, within a tolerance, in the answer's unit or one convertible to it), `term`
 * (a word or short phrase, width-, case-, space- and punctuation-insensitive) — all three graded by
 * the app — or `self`: an answer in her own words, which she compares with the model answer and
 * marks herself. Words that differ from the model answer never make an answer wrong.
 */
export type Grading = "choice" | "number" | "term" | "self";

/** A term is at most this many characters (CJK) or words (other scripts), with no sentence punctuation. */
const TERM = { cjk: 12, words: 4 } as const;
/** A number is right within 1 % of the model answer (and within 1e-9 of zero). */
const RELATIVE_TOLERANCE = 0.01;

export function gradingOf(q: Question): Grading {
  if (q.type !== "short_answer") return "choice";
  if (quantity(q.answer)) return "number";
  const a = q.answer.normalize("NFKC").trim();
  if (/[。！？；，,;!?]|\.\s|\.$/u.test(a.replace(/\d[.,]\d/g, ""))) return "self";
  const long = hasCjk(a) ? graphemes(a.replace(/\s+/g, "")) > TERM.cjk : a.split(/\s+/).length > TERM.words;
  return long ? "self" : "term";
}

/**
 * Whether the response is right: true or false for what the app grades, null for an answer she
 * marks herself (server/learning/quiz-attempts.ts keeps it pending until she does).
 */
export function grade(q: Question, response: string): boolean | null {
  const how = gradingOf(q);
  if (how === "self") return null;
  if (!response.trim()) return false;
  if (how === "choice") return choiceKey(response) === choiceKey(q.answer);
  if (how === "number") return sameQuantity(quantity(q.answer)!, quantity(response));
  return sameTerm(q.answer, response);
}

const NEGATION = /\b(?:not|no|never|isn t|aren t|nor)\b|不|没|非|否|未/u;
/**
 * The term, alone or said in a phrase ("Oxygen is released", "是叶绿素"): right when her answer
 * holds it (as whole words outside CJK) and says nothing negating besides.
 */
function sameTerm(answer: string, response: string) {
  const a = termKey(answer);
  const r = termKey(response);
  if (!a) return false;
  if (r === a) return true;
  const spaced = ` ${spacedKey(response)} `;
  const term = spacedKey(answer);
  const at = hasCjk(term) ? spaced.replace(/\s+/g, "").indexOf(term.replace(/\s+/g, "")) : spaced.indexOf(` ${term} `);
  if (at < 0) return false;
  const rest = hasCjk(term)
    ? spaced.replace(/\s+/g, "").replace(term.replace(/\s+/g, ""), " ")
    : spaced.replace(` ${term} `, " ");
  return !NEGATION.test(rest);
}

/** termKey with the words kept apart by single spaces. */
const spacedKey = (s: string) =>
  s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();

/** True/false answers in either language read as one value; other options compare as terms. */
const TRUE_WORDS = new Set(["true", "t", "yes", "对", "正确", "是", "√", "✓"]);
const FALSE_WORDS = new Set(["false", "f", "no", "错", "错误", "否", "×", "✗"]);
function choiceKey(s: string) {
  const k = termKey(s);
  if (TRUE_WORDS.has(k)) return "\u0001true";
  if (FALSE_WORDS.has(k)) return "\u0001false";
  return k;
}

const FILLER = /^(?:(?:答案是|答案为|答案|答|是|为)(?=.)|(?:the answer is|answer|it is|it s|the|an|a)\s+)/u;
/** Width (NFKC), case, spaces and punctuation removed, and a leading "答案是" / "the" dropped. */
export function termKey(s: string) {
  let k = s.normalize("NFKC").toLowerCase().trim();
  k = k.replace(/[\p{P}\p{S}]+/gu, " ").trim();
  for (let i = 0; i < 3; i++) {
    const next = k.replace(FILLER, "").trim();
    if (next === k) break;
    k = next;
  }
  return k.replace(/\s+/g, "");
}

/** Units a quantity may carry: its dimension and its factor to the dimension's base unit. */
const UNITS: Record<string, [string, number]> = {
  m: ["length", 1],
  米: ["length", 1],
  cm: ["length", 0.01],
  厘米: ["length", 0.01],
  mm: ["length", 0.001],
  毫米: ["length", 0.001],
  km: ["length", 1000],
  千米: ["length", 1000],
  公里: ["length", 1000],
  kg: ["mass", 1],
  千克: ["mass", 1],
  公斤: ["mass", 1],
  g: ["mass", 0.001],
  克: ["mass", 0.001],
  s: ["time", 1],
  秒: ["time", 1],
  min: ["time", 60],
  分钟: ["time", 60],
  h: ["time", 3600],
  小时: ["time", 3600],
  n: ["force", 1],
  牛: ["force", 1],
  牛顿: ["force", 1],
  pa: ["pressure", 1],
  帕: ["pressure", 1],
  帕斯卡: ["pressure", 1],
  kpa: ["pressure", 1000],
  千帕: ["pressure", 1000],
  j: ["energy", 1],
  焦: ["energy", 1],
  焦耳: ["energy", 1],
  w: ["power", 1],
  瓦: ["power", 1],
  瓦特: ["power", 1],
  "m/s": ["speed", 1],
  "米/秒": ["speed", 1],
  "km/h": ["speed", 1 / 3.6],
  "千米/时": ["speed", 1 / 3.6],
  "kg/m3": ["density", 1],
  "千克/米3": ["density", 1],
  "g/cm3": ["density", 1000],
  "克/厘米3": ["density", 1000],
  "%": ["ratio", 0.01],
  l: ["volume", 0.001],
  升: ["volume", 0.001],
  ml: ["volume", 0.000001],
  毫升: ["volume", 0.000001],
  m3: ["volume", 1],
  立方米: ["volume", 1],
  "°c": ["temperature", 1],
  摄氏度: ["temperature", 1],
  度: ["angle", 1],
  "°": ["angle", 1],
};

type Quantity = { value: number; unit: string | null };

/** A number with an optional unit ("9.8 N", "１０米", "-3", "25%"), or null when the text is not one. */
export function quantity(s: string): Quantity | null {
  const t = s
    .normalize("NFKC")
    .trim()
    .toLowerCase()
    .replace(/[³]/g, "3")
    .replace(/[。.]$/u, "")
    .replace(/(?<=\d),(?=\d{3}\b)/g, "");
  const m = /^(?:约|大约|about|approximately|≈)?\s*([-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*(.*)$/u.exec(t);
  if (!m) return null;
  const value = Number(m[1]!.replace("−", "-"));
  if (!Number.isFinite(value)) return null;
  const unit = m[2]!.replace(/\s+/g, "").replace(/\^/g, "");
  if (!unit) return { value, unit: null };
  return UNITS[unit] ? { value, unit } : null;
}

/**
 * The same quantity: the number within the tolerance after converting her unit to the model
 * answer's; a unit of another dimension is wrong, a unit left out is read as the model answer's.
 */
function sameQuantity(model: Quantity, given: Quantity | null) {
  if (!given) return false;
  let value = given.value;
  if (model.unit && given.unit) {
    const [dimA, fA] = UNITS[model.unit]!;
    const [dimB, fB] = UNITS[given.unit]!;
    if (dimA !== dimB) return false;
    value = (given.value * fB) / fA;
  } else if (!model.unit && given.unit) return false;
  return Math.abs(value - model.value) <= Math.max(1e-9, Math.abs(model.value) * RELATIVE_TOLERANCE);
}
