import type { SnapshotContent } from "../fields";
import { norm } from "../fields";
import type { Templates } from "../shared/templates";
import type { Quiz } from "./schema";
import { calculationOf, formatNumber, formulasIn } from "../shared/formula";
import { causesIn, misconceptionsIn } from "../shared/understanding";
import { sectionOf } from "../shared/items";
import { clip, type Kp } from "../shared/text";

type Question = Omit<Quiz["questions"][number], "knowledgePointId" | "difficulty">;
type Q = Templates["quiz"];

/**
 * Questions that ask a learner to use a point, not to recognise its sentence: a calculation from
 * the formula its section states (numbers and units; the distractors are the results of the usual
 * mistakes), a why-question from a causal sentence of its section (the distractors are the
 * material's other causes and the misconceptions it refutes) and a true/false statement of a
 * misconception the material refutes. Null when the section gives nothing for one.
 */

const materialOf = (snapshot: SnapshotContent, kp: Kp) =>
  snapshot.materials.find((m) => m.id === kp.materialId)?.content ?? "";

/** A number from the point's id: a quiz on the same snapshot is the same each time. */
const seedOf = (kp: Kp) => [...kp.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 11);

/** The answer's place among the options, from its text (never always first). */
function place(answer: string, others: string[]) {
  const at = [...answer].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % (others.length + 1);
  return [...others.slice(0, at), answer, ...others.slice(at)];
}

const withUnit = (x: number, unit: string) => `${formatNumber(x)} ${unit}`;

/** A calculation on the point's formula: single choice (the mistakes' results as options) or short answer. */
export function calculationQuestion(
  snapshot: SnapshotContent,
  kp: Kp,
  concept: string,
  type: "single_choice" | "short_answer",
  options: number,
  Q: Q,
  variant = 0,
): Question | null {
  const text = materialOf(snapshot, kp);
  const formulas = formulasIn(sectionOf(snapshot, kp));
  const formula = formulas[variant % Math.max(1, formulas.length)];
  if (!text || !formula) return null;
  const calc = calculationOf(formula, text, seedOf(kp) + variant * 5);
  if (!calc) return null;
  const given = calc.given.map((g) => Q.quantity(g.name, g.symbol, withUnit(g.value, g.unit)));
  const target = `${calc.target.name ?? ""}${calc.target.name && !/\p{Script=Han}/u.test(calc.target.name) ? " " : ""}${calc.target.symbol}`;
  const answer = withUnit(calc.answer, calc.target.unit);
  let steps = formula.text.replace(/^[^=]+=\s*/u, "");
  for (const g of [...calc.given].sort((a, b) => b.symbol.length - a.symbol.length))
    steps = steps.split(g.symbol).join(withUnit(g.value, g.unit));
  const explanation = Q.working(formula.text, `${calc.target.symbol} = ${steps} = ${answer}`);
  const stem = clip(Q.calculate(concept, given, target), 1000);
  if (type === "short_answer") return { type, stem, options: [], answer, explanation: clip(explanation, 2000) };
  const wrong = calc.wrong.slice(0, options - 1).map((x) => withUnit(x, calc.target.unit));
  return { type, stem, options: place(answer, wrong), answer, explanation: clip(explanation, 2000) };
}

/** A why-question on a causal sentence of the point's section: choose (or write) the cause it states. */
export function whyQuestion(
  snapshot: SnapshotContent,
  kp: Kp,
  type: "single_choice" | "short_answer",
  options: number,
  Q: Q,
  variant = 0,
): Question | null {
  const text = materialOf(snapshot, kp);
  const own = causesIn(sectionOf(snapshot, kp));
  const c = own[variant];
  if (!c) return null;
  const stem = clip(type === "short_answer" ? Q.whyShort(c.masked) : Q.why(c.masked), 1000);
  const explanation = clip(Q.materialSays(c.sentence), 2000);
  if (type === "short_answer") return { type, stem, options: [], answer: clip(c.cause, 1000), explanation };
  // Plausible wrong reasons: what the material refutes, then its other causes; never this cause turned round.
  const answer = clip(c.cause, 300);
  const seen = new Set([norm(answer)]);
  const wrong: string[] = [];
  const pool = [
    ...misconceptionsIn(text).map((m) => m.claim.replace(/[。.]$/u, "")),
    ...causesIn(text).map((x) => x.cause),
  ];
  for (const w of pool) {
    const o = clip(w, 300);
    if (wrong.length >= options - 1 || seen.has(norm(o)) || norm(c.sentence).includes(norm(o))) continue;
    seen.add(norm(o));
    wrong.push(o);
  }
  if (wrong.length < 2) return null;
  return { type, stem, options: place(answer, wrong), answer, explanation };
}

/** A true/false statement of a misconception the point's section refutes: false, with the refutation. */
export function misconceptionStatement(snapshot: SnapshotContent, kp: Kp, Q: Q, variant = 0): Question | null {
  const m = misconceptionsIn(sectionOf(snapshot, kp))[variant];
  if (!m) return null;
  return {
    type: "true_false",
    stem: clip(Q.trueOrFalse(m.claim), 1000),
    options: [...Q.trueFalse],
    answer: Q.trueFalse[1],
    explanation: clip(Q.refuted(m.refutation), 2000),
  };
}
