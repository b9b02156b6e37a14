/**
 * Formulas a material states ("F浮 = G - F示", "p = F/S", "n = m / M", "溶质的质量分数 = 溶质质量 /
 * 溶液质量 × 100%"), their quantities' names and units as the material gives them, and a
 * calculation made from one: values for the inputs, the result, and the results of the usual
 * mistakes (an operation turned round, a quantity left out, a unit slipped by ten). Pure.
 */

type Node =
  | { kind: "symbol"; name: string }
  | { kind: "number"; value: number }
  | { kind: "op"; op: "+" | "-" | "*" | "/"; left: Node; right: Node };

export type Formula = { target: string; expression: Node; text: string; symbols: string[] };

/** A quantity's symbol: one Latin or Greek letter, with a one-character Chinese subscript (F浮, ρ液, V排). */
const SYMBOL = /^(?:[A-Za-zρλΔ])(?:\p{Script=Han}(?!\p{Script=Han}))?/u;

type Token = { kind: "symbol" | "number" | "op" | "open" | "close"; text: string };

/** The tokens of one side of a formula, or null when it is no formula (a word, a worked example's number with a unit). */
function tokenize(side: string, words: boolean): Token[] | null {
  const out: Token[] = [];
  let s = side.trim();
  while (s) {
    const space = /^\s+/u.exec(s);
    if (space) {
      s = s.slice(space[0].length);
      continue;
    }
    const op = /^(?:[+\-−×·*/÷])/u.exec(s);
    if (op) {
      const c = op[0];
      out.push({ kind: "op", text: c === "−" ? "-" : c === "×" || c === "·" ? "*" : c === "÷" ? "/" : c });
      s = s.slice(1);
      continue;
    }
    if (/^[(（]/u.test(s) || /^[)）]/u.test(s)) {
      out.push({ kind: /^[(（]/u.test(s) ? "open" : "close", text: s[0]! });
      s = s.slice(1);
      continue;
    }
    const percent = /^100\s*%/u.exec(s);
    if (percent) {
      out.push({ kind: "number", text: "100" });
      s = s.slice(percent[0].length);
      continue;
    }
    if (words) {
      const w = /^\p{Script=Han}{2,10}/u.exec(s);
      if (!w) return null;
      out.push({ kind: "symbol", text: w[0] });
      s = s.slice(w[0].length);
      continue;
    }
    // "ma", "IR", "mgh": letters written together are a product of one-letter symbols.
    const run = /^[A-Za-zρλΔ]{2,3}(?![A-Za-z])(?!\p{Script=Han})/u.exec(s);
    if (run) {
      for (const c of run[0]) out.push({ kind: "symbol", text: c });
      s = s.slice(run[0].length);
      continue;
    }
    // A word ("where", "volume") is no quantity's symbol.
    const sym = SYMBOL.exec(s);
    if (!sym || /^[A-Za-z]{4,}/.test(s)) return null;
    out.push({ kind: "symbol", text: sym[0] });
    s = s.slice(sym[0].length);
  }
  return out.length ? out : null;
}

/** Parses tokens: sums of products; symbols written side by side multiply. */
function parse(tokens: Token[]): Node | null {
  let i = 0;
  const factor = (): Node | null => {
    const t = tokens[i];
    if (!t) return null;
    if (t.kind === "open") {
      i++;
      const e = sum();
      if (tokens[i]?.kind !== "close") return null;
      i++;
      return e;
    }
    if (t.kind === "symbol") return (i++, { kind: "symbol", name: t.text });
    if (t.kind === "number") return (i++, { kind: "number", value: Number(t.text) });
    return null;
  };
  const product = (): Node | null => {
    let left = factor();
    while (left && i < tokens.length) {
      const t = tokens[i]!;
      if (t.kind === "op" && (t.text === "*" || t.text === "/")) {
        i++;
        const right = factor();
        if (!right) return null;
        left = { kind: "op", op: t.text, left, right };
      } else if (t.kind === "symbol" || t.kind === "open" || t.kind === "number") {
        const right = factor();
        if (!right) return null;
        left = { kind: "op", op: "*", left, right };
      } else break;
    }
    return left;
  };
  const sum = (): Node | null => {
    let left = product();
    while (left && tokens[i]?.kind === "op" && (tokens[i]!.text === "+" || tokens[i]!.text === "-")) {
      const op = tokens[i]!.text as "+" | "-";
      i++;
      const right = product();
      if (!right) return null;
      left = { kind: "op", op, left, right };
    }
    return left;
  };
  const e = sum();
  return e && i === tokens.length ? e : null;
}

const symbolsOf = (n: Node): string[] =>
  n.kind === "symbol" ? [n.name] : n.kind === "op" ? [...symbolsOf(n.left), ...symbolsOf(n.right)] : [];

/**
 * The formulas a text states: "A = expression" with at least two quantities on the right; of a
 * chain ("F浮 = G排 = ρ液gV排") the first quantity and the last expression. A worked example (numbers
 * with units) is no formula.
 */
export function formulasIn(text: string): Formula[] {
  const out: Formula[] = [];
  for (const line of text.split(/[\n。；;！？!?]|[.,，:：](?!\d)/u)) {
    if (!line.includes("=")) continue;
    const parts = line.split("=");
    const words = !/[A-Za-zρ]/u.test(parts.slice(1).join("="));
    // The quantity before the first "=": its last symbol ("则浮力F浮" → F浮), or the words after 为/即/则.
    const head = parts[0]!;
    let target: string | null;
    if (words)
      target =
        /(?:为|即|则|是)?(\p{Script=Han}{2,10})\s*$/u.exec(head.replace(/^.*(?:公式为|为|即|则)/u, ""))?.[1] ?? null;
    else {
      const m = [...head.matchAll(/(?<![A-Za-z])[A-Za-zρλΔ](?:\p{Script=Han}(?!\p{Script=Han}))?(?=\s*$)/gu)];
      target = m.length ? m[m.length - 1]![0] : null;
    }
    if (!target) continue;
    // The last side that is an expression of quantities (not a worked example's numbers).
    for (let k = parts.length - 1; k >= 1; k--) {
      let side = parts[k]!;
      if (/\d/u.test(side.replace(/100\s*%/u, "")) && !/^[^\d]*$/u.test(side)) continue;
      // A clause that goes on after the formula ("G时悬浮", ", where …") ends it.
      if (!words)
        side = side.replace(/\p{Script=Han}{2,}.*$/u, "").replace(/\s+(?:[A-Za-z]{4,}|where|with|and)\b.*$/u, "");
      const tokens = tokenize(side, words);
      const expression = tokens && parse(tokens);
      if (!expression) continue;
      const symbols = [...new Set(symbolsOf(expression))];
      if (symbols.length < 2 || symbols.includes(target)) continue;
      out.push({ target, expression, symbols, text: `${target} = ${side.trim()}` });
      break;
    }
  }
  return out;
}

/** Units a quantity's symbol usually has, when the material does not give one. */
const DEFAULT_UNIT: Record<string, string> = {
  F: "N",
  G: "N",
  ρ: "kg/m³",
  g: "N/kg",
  p: "Pa",
  S: "m²",
  m: "kg",
  I: "A",
  U: "V",
  R: "Ω",
  n: "mol",
  M: "g/mol",
  t: "s",
  a: "m/s²",
  v: "m/s",
  W: "J",
  P: "W",
  Q: "C",
};

const UNIT = "([A-Za-zΩμ°%²³/·⁻¹]+(?:/[A-Za-zΩ²³]+)?)";

/** A quantity's unit: as the material states it ("压力F的单位是N", "Force F is measured in newtons (N)"), else the usual one. */
export function unitOf(symbol: string, text: string, formula: Formula): string | null {
  const s = symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const stated =
    new RegExp(`(?<![A-Za-z])${s}的单位是${UNIT}`, "u").exec(text) ??
    new RegExp(
      `(?<![A-Za-z])${s}(?![A-Za-z\\p{Script=Han}])[^。；;.,，]{0,30}?(?:单位是|measured in|is in|in)[^()（）。；;,，]{0,30}?[（(]${UNIT}[)）]`,
      "u",
    ).exec(text);
  if (stated) return stated[1]!;
  if (!SYMBOL.test(symbol) || /^\p{Script=Han}/u.test(symbol)) {
    // A quantity written in words: its unit by what it measures.
    const by = Object.entries(WORD_UNIT).find(([w]) => symbol.endsWith(w));
    return by ? by[1] : null;
  }
  const base = symbol[0]!;
  if (base === "V")
    return formula.symbols.some((x) => /^[IR]/.test(x)) ||
      formula.target.startsWith("I") ||
      formula.target.startsWith("R")
      ? "V"
      : "m³";
  if (base === "A") return formula.target.startsWith("p") ? "m²" : "A";
  return DEFAULT_UNIT[base] ?? null;
}

const FUNCTION_EN =
  /^(?:the|a|an|and|or|with|where|then|that|this|from|into|when|of|unless|if|is|are|as|by|in|on|at|to|so|its|their)$/i;

/** A quantity's name as the material writes it before its symbol ("重力G" → 重力, "Force F" → force), or null. */
export function nameOf(symbol: string, text: string): string | null {
  const s = symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const after = "(?![A-Za-z])(?:(?=[的和与为是，,\\s=])|(?!\\p{Script=Han}))";
  for (const zh of text.matchAll(new RegExp(`(\\p{Script=Han}{2,5})${s}${after}`, "gu"))) {
    const name = zh[1]!.replace(/^.*[的出为是在了]/u, "").replace(/^(?:其中|[则即和与及把将再先用])+/u, "");
    if (Array.from(name).length >= 2) return name;
  }
  for (const en of text.matchAll(
    new RegExp(`(?:^|[\\s(])((?:[A-Za-z]{2,}\\s+)?[A-Za-z]{3,})\\s+${s}(?![\\p{L}])`, "gu"),
  )) {
    const words = en[1]!.split(/\s+/);
    // "the amount n", "Potential difference V"; never "calculated with n".
    if (FUNCTION_EN.test(words[words.length - 1]!)) continue;
    const kept = FUNCTION_EN.test(words[0]!) ? words.slice(1) : words;
    if (kept.some((w) => /(?:ed|ing)$/i.test(w))) continue;
    return kept.join(" ").toLowerCase();
  }
  return null;
}

/** Units of quantities written in words, by their last word (溶质质量 → g). */
const WORD_UNIT: Record<string, string> = { 质量: "g", 体积: "m³", 密度: "kg/m³", 时间: "s", 路程: "m", 速度: "m/s" };

/** Values a quantity of a unit takes in a textbook exercise: round numbers of a plausible size. */
const VALUES: Record<string, number[]> = {
  N: [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 50, 200, 600],
  "kg/m³": [800, 1000, 2700, 7900],
  "N/kg": [10],
  "m³": [0.0001, 0.0002, 0.0005, 0.002],
  Pa: [500, 1000, 2000, 5000],
  "m²": [0.02, 0.04, 0.05, 0.5, 2],
  kg: [2, 3, 5, 6, 10, 60],
  g: [9, 10, 18, 36, 40, 88],
  A: [0.2, 0.5, 1, 2],
  V: [1.5, 3, 6, 12],
  Ω: [5, 10, 20, 30],
  mol: [0.5, 2, 3],
  "g/mol": [18, 32, 44, 58.5],
  s: [2, 5, 10],
  "m/s": [2, 5, 10],
  "m/s²": [2, 5],
  "%": [5, 10, 20],
};

function evaluate(n: Node, values: Map<string, number>): number {
  if (n.kind === "number") return n.value;
  if (n.kind === "symbol") return values.get(n.name) ?? NaN;
  const [a, b] = [evaluate(n.left, values), evaluate(n.right, values)];
  return n.op === "+" ? a + b : n.op === "-" ? a - b : n.op === "*" ? a * b : a / b;
}

/** The expression with one operation turned round (× ↔ ÷, + ↔ −): the mistake a learner makes. */
function turned(n: Node): Node[] {
  if (n.kind !== "op") return [];
  const flip = { "+": "-", "-": "+", "*": "/", "/": "*" } as const;
  return [
    { ...n, op: flip[n.op] },
    ...turned(n.left).map((left) => ({ ...n, left })),
    ...turned(n.right).map((right) => ({ ...n, right })),
  ];
}

/** The expression with one product's factor left out (ρ液gV排 without g). */
function omitted(n: Node): Node[] {
  if (n.kind !== "op") return [];
  const here = n.op === "*" ? [n.left, n.right] : [];
  return [
    ...here,
    ...omitted(n.left).map((left) => ({ ...n, left })),
    ...omitted(n.right).map((right) => ({ ...n, right })),
  ];
}

/** A number as an exercise writes it: at most four significant digits, no float noise. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return "";
  const r = Number(x.toPrecision(4));
  return String(r);
}

export type Calculation = {
  formula: Formula;
  given: { symbol: string; name: string | null; value: number; unit: string }[];
  target: { symbol: string; name: string | null; unit: string };
  answer: number;
  /** Results of the usual mistakes, each different from the answer and from each other. */
  wrong: number[];
};

const nice = (x: number) =>
  Number.isFinite(x) && x > 0 && Math.abs(x - Number(x.toPrecision(3))) < 1e-9 * Math.max(1, x);

/**
 * A calculation from the formula: each input a round value of its unit (picked by `seed`, so a
 * quiz is the same each time), kept only when the result is a positive round number.
 */
export function calculationOf(formula: Formula, text: string, seed: number): Calculation | null {
  const units = new Map(formula.symbols.map((s) => [s, unitOf(s, text, formula)]));
  const targetUnit = /100\s*%/u.test(formula.text) ? "%" : unitOf(formula.target, text, formula);
  if (!targetUnit || [...units.values()].some((u) => !u || !VALUES[u])) return null;
  for (let attempt = 0; attempt < 40; attempt++) {
    const values = new Map<string, number>();
    formula.symbols.forEach((s, i) => {
      const pool = VALUES[units.get(s)!]!;
      // Water's density for ρ液 / ρ水, and g at 10 N/kg, as Chinese textbooks set them.
      const pick = /^ρ[液水]$/u.test(s) ? 1000 : pool[(seed + attempt * (i + 1) * 7 + i * 3) % pool.length]!;
      values.set(s, pick);
    });
    const answer = evaluate(formula.expression, values);
    if (!nice(answer) || answer > 1e6 || (targetUnit === "%" && answer >= 100)) continue;
    const wrong = [
      ...turned(formula.expression).map((e) => evaluate(e, values)),
      ...omitted(formula.expression).map((e) => evaluate(e, values)),
      answer * 10,
      answer / 10,
    ]
      .map((x) => Number(formatNumber(x)))
      .filter((x, i, all) => nice(x) && x !== Number(formatNumber(answer)) && all.indexOf(x) === i);
    // The mistakes that give a plausible size (within a hundredfold), the nearest first.
    const near = wrong
      .filter((x) => x / answer <= 100 && answer / x <= 100)
      .sort((a, b) => Math.abs(Math.log(a / answer)) - Math.abs(Math.log(b / answer)));
    if (near.length < 2) continue;
    return {
      formula,
      given: formula.symbols.map((s) => ({
        symbol: s,
        name: nameOf(s, text),
        value: values.get(s)!,
        unit: units.get(s)!,
      })),
      target: { symbol: formula.target, name: nameOf(formula.target, text), unit: targetUnit },
      answer: Number(formatNumber(answer)),
      wrong: near,
    };
  }
  return null;
}
