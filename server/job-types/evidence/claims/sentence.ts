import { PERCENT_TOLERANCE } from "../finding";
import type { Facts } from "./facts";
import { canonical, numbersIn } from "./numerals";
import { quantifiersIn, type Quantifier } from "./quantifiers";

/** What a count in a sentence counts. */
export type Kind = "answers" | "wrong" | "right" | "reviews" | "again" | "forgotten" | "lapses" | "cards" | "due";
export type Claim =
  | { kind: Kind; value: number; text: string }
  | { kind: "percent"; value: number; wrongShare: boolean; text: string }
  | { kind: "number"; value: number; text: string }
  | { kind: "quantifier"; q: Quantifier; text: string };

const N = "(\\d+)";
const OWN = "(?:the |her |his |their |its |my |your )?";
const ANS = "(?:answers?|attempts?|questions?|responses?|tries)";
const WRONG_EN = "(?:wrong|incorrect|incorrectly|wrongly|failed|missed)";
const RIGHT_EN = "(?:right|correct|correctly)";
const WRONG_ZH = "(?:答错|错了|做错|错误|错)";
const RIGHT_ZH = "(?:答对|对了|做对|正确|对)";

/** Times, ordinals and an item's number are not facts about answers: read past them. */
const TIME = new RegExp(
  `第\\s*\\d+|${N}\\s*(?:分钟|小时|天|周|星期|秒|个?月|年)|${N} ?(?:minutes?|mins?|hours?|days?|weeks?|months?|years?|seconds?)\\b|\\((?:question|card) \\d+\\)`,
  "gu",
);

/** Patterns of counts, most specific first; each claims its span so later ones do not read it again. */
const COUNTS: { re: RegExp; kind: Kind | "skip" | "number" }[] = [
  // Cards.
  {
    re: new RegExp(`${N}\\s*张(?:卡片)?(?:在最近(?:一|1)次复习时|在上次复习时|上次复习时|最近复习时)?(?:被)?忘`, "gu"),
    kind: "forgotten",
  },
  { re: new RegExp(`${N} (?:cards? )?(?:were |was |got )?forgotten|forgot ${N} cards?`, "gu"), kind: "forgotten" },
  {
    re: new RegExp(
      `${N}\\s*张(?:卡片)?(?:已经?|现在|今天)?(?:到期|待复习|需要复习|该复习|要复习)|到期(?:的)?(?:卡片)?(?:有)?\\s*${N}\\s*张|(?:要|需|该)复习\\s*${N}\\s*张|${N}\\s*张到期`,
      "gu",
    ),
    kind: "due",
  },
  {
    re: new RegExp(
      `${N} (?:due cards?|cards? (?:are |is )?(?:now )?(?:due|to review)|due\\b)|review (?:the )?${N} (?:due )?cards?`,
      "gu",
    ),
    kind: "due",
  },
  { re: new RegExp(`${N}\\s*张(?:卡片)?|${N} cards?`, "gu"), kind: "cards" },
  // Reviews.
  {
    re: new RegExp(`${N}\\s*次(?:被)?评为|${N} (?:(?:of ${N} reviews? )?(?:were )?(?:rated|marked) )?again\\b`, "gu"),
    kind: "again",
  },
  { re: new RegExp(`遗忘\\s*了?\\s*${N}\\s*次|${N} lapses?|forgotten ${N} times?`, "gu"), kind: "lapses" },
  {
    re: new RegExp(`复习(?:了)?\\s*${N}\\s*次|${N}\\s*次复习|${N} reviews?|reviewed ${N} times?`, "gu"),
    kind: "reviews",
  },
  // Answers right and wrong.
  {
    re: new RegExp(
      `${WRONG_ZH}\\s*了?\\s*${N}\\s*(?:次|道|题)|${N}\\s*(?:次|道题?|题)(?:都|全|全部)?${WRONG_ZH}`,
      "gu",
    ),
    kind: "wrong",
  },
  {
    re: new RegExp(
      `${RIGHT_ZH}\\s*了?\\s*${N}\\s*(?:次|道|题)|${N}\\s*(?:次|道题?|题)(?:都|全|全部)?${RIGHT_ZH}`,
      "gu",
    ),
    kind: "right",
  },
  {
    re: new RegExp(
      `${N} ${WRONG_EN} ${ANS}|${N} (?:${ANS} )?(?:were |was |are |is |answered )?${WRONG_EN}|${N} (?:mistakes?|errors?)|(?:got|answered) ${N} (?:questions? )?(?:wrong|incorrectly)|wrong ${N} times?`,
      "gu",
    ),
    kind: "wrong",
  },
  {
    re: new RegExp(
      `${N} ${RIGHT_EN} ${ANS}|${N} (?:${ANS} )?(?:were |was |are |is |answered )?${RIGHT_EN}|(?:got|answered) ${N} (?:questions? )?(?:right|correctly)|right ${N} times?`,
      "gu",
    ),
    kind: "right",
  },
  {
    re: new RegExp(
      `(?:作答|答题|回答|做题|做了|答了|练习)\\s*了?\\s*${N}\\s*(?:次|道|题)|${N}\\s*(?:次|道)(?:作答|答题|回答|练习)|${N}\\s*道题`,
      "gu",
    ),
    kind: "answers",
  },
  { re: new RegExp(`${N} ${ANS}|answered ${N} (?:times?|questions?)`, "gu"), kind: "answers" },
];

/** The window of newest answers a clause speaks of ("最近 4 次", "the last 4 answers"), if any. */
const SCOPE = new RegExp(
  `(?:最近|近)\\s*${N}\\s*(?:次|道|题)(?!复习)|(?:last|latest|most recent|recent|past) ${N} ${ANS}|(?:last|latest) ${N}\\b`,
  "u",
);
/** "2 of the last 3 answers wrong", "最近 3 次中 2 次答错", "3 of 4 answers correct". */
const FRACTION_EN = new RegExp(
  `${N} of ${OWN}((?:last|latest|most recent|recent|past) )?${N} ${ANS}(?: (?:were|was|are|is|answered))?(?: (${WRONG_EN}|${RIGHT_EN}))?|(?:got|answered) ${N} of ${OWN}((?:last|latest|recent) )?${N}(?: ${ANS})? (${WRONG_EN}|${RIGHT_EN}|wrong|right)`,
  "gu",
);
const FRACTION_ZH = new RegExp(
  `((?:最近|近)\\s*)?${N}\\s*(?:次|道|题)(?:作答|答题|回答|练习)?(?:中|里|当中)\\s*(?:有|共)?\\s*${N}\\s*(?:次|道|题)?(${WRONG_ZH}|${RIGHT_ZH})`,
  "gu",
);

/** Splits a text into clauses: a scope ("the last 4 answers") holds within its clause. */
export const clausesOf = (canon: string) => canon.split(/[。；;！!？?\n]|\.(?:\s|$)/u).filter((c) => c.trim());

/** Every claim of a clause (already `canonical`), with the window of newest answers it speaks of. */
export function claimsIn(clause: string): { scope: number | null; claims: Claim[]; fractions: Fraction[] } {
  let rest = clause;
  const claims: Claim[] = [];
  const fractions: Fraction[] = [];
  const blank = (m: string) => " ".repeat(m.length);
  rest = rest.replace(TIME, blank);
  rest = rest.replace(FRACTION_EN, (m, ...g: (string | undefined)[]) => {
    const [a1, last1, b1, pol1, a2, last2, b2, pol2] = g;
    const a = Number(a1 ?? a2);
    const b = Number(b1 ?? b2);
    const pol = pol1 ?? pol2;
    fractions.push({ part: a, of: b, recent: !!(last1 ?? last2), polarity: polarityOf(pol), text: m });
    return blank(m);
  });
  rest = rest.replace(FRACTION_ZH, (m, recent: string | undefined, b: string, a: string, pol: string | undefined) => {
    fractions.push({ part: Number(a), of: Number(b), recent: !!recent, polarity: polarityOf(pol), text: m });
    return blank(m);
  });
  const scopeMatch = SCOPE.exec(rest);
  const scope = scopeMatch ? Number(scopeMatch[1] ?? scopeMatch[2] ?? scopeMatch[3]) : null;
  if (scopeMatch) rest = rest.replace(scopeMatch[0], blank(scopeMatch[0]));
  const quantified = quantifiersIn(rest);
  rest = quantified.rest;
  for (const q of quantified.found) claims.push({ kind: "quantifier", q, text: q.text });
  for (const { re, kind } of COUNTS)
    rest = rest.replace(re, (m, ...g: unknown[]) => {
      if (kind !== "skip") {
        const n = g.slice(0, -2).find((x) => typeof x === "string" && /^\d+$/u.test(x));
        if (n !== undefined) claims.push({ kind, value: Number(n), text: m.trim() } as Claim);
      }
      return blank(m);
    });
  for (const t of numbersIn(rest)) {
    const text = rest.slice(t.index, t.index + t.length).trim();
    if (t.percent)
      claims.push({
        kind: "percent",
        value: t.value / 100,
        wrongShare: /错|wrong|incorrect|error|mistake/u.test(clause),
        text,
      });
    else claims.push({ kind: "number", value: t.value, text });
  }
  return { scope, claims, fractions };
}

export type Fraction = { part: number; of: number; recent: boolean; polarity: "wrong" | "right" | null; text: string };
function polarityOf(p: string | undefined): "wrong" | "right" | null {
  if (!p) return null;
  return /错|wrong|incorrect|fail|miss/u.test(p) ? "wrong" : "right";
}

const wrongIn = (a: { correct: boolean }[]) => a.filter((x) => !x.correct).length;

/**
 * Why a claim is false of these facts, or null when it holds. A scope larger than the answers
 * there are is itself false.
 */
export function refute(c: Claim, f: Facts, scope: number | null, extra: number[]): string | null {
  const window = scope === null ? f.answers : f.answers.slice(0, scope);
  const holds = (ok: boolean, what: string) => (ok ? null : what);
  switch (c.kind) {
    case "answers":
      return holds(c.value === f.answers.length, `${f.label} has ${f.answers.length} answers`);
    case "wrong":
      return holds(c.value === wrongIn(window), `${wrongIn(window)} of ${window.length} answers are wrong`);
    case "right":
      return holds(
        c.value === window.length - wrongIn(window),
        `${window.length - wrongIn(window)} of ${window.length} answers are right`,
      );
    case "reviews":
      return holds(c.value === f.reviews, `${f.reviews} reviews`);
    case "again":
      return holds(c.value === f.again, `${f.again} reviews rated Again`);
    case "forgotten":
      return holds(c.value === f.forgotten, `${f.forgotten} cards forgotten at their latest review`);
    case "lapses":
      return holds(c.value === f.lapses, `${f.lapses} lapses`);
    case "cards":
      return holds(c.value === f.cards || c.value === f.due, `${f.cards} cards, ${f.due} due`);
    case "due":
      return holds(c.value === f.due, `${f.due} cards due`);
    case "percent": {
      const shares =
        window.length && scope !== null ? [wrongIn(window) / window.length, 1 - wrongIn(window) / window.length] : [];
      const allowed = [...f.percents, ...shares];
      return holds(
        allowed.some((x) => Math.abs(x - c.value) <= PERCENT_TOLERANCE),
        `its figures are ${[...new Set(f.percents.map((x) => `${Math.round(x * 1000) / 10} %`))].join(", ") || "none"}`,
      );
    }
    case "number": {
      const counts = [
        f.answers.length,
        wrongIn(f.answers),
        f.answers.length - wrongIn(f.answers),
        f.reviews,
        f.again,
        f.forgotten,
        f.lapses,
        f.cards,
        f.due,
        ...f.counts,
        ...extra,
      ];
      return holds(counts.includes(c.value), `no count of ${f.label} is ${c.value}`);
    }
    case "quantifier": {
      const target = c.q.scope === null ? window : f.answers.slice(0, c.q.scope);
      const wrong = wrongIn(target);
      const right = target.length - wrong;
      const said =
        (c.q.scope ?? scope) !== null ? `the newest ${target.length} answers` : `its ${target.length} answers`;
      switch (c.q.says) {
        case "all_right":
          return holds(target.length > 0 && wrong === 0, `${wrong} of ${said} are wrong`);
        case "all_wrong":
          return holds(target.length > 0 && right === 0, `${right} of ${said} are right`);
        case "most_right":
          return holds(right * 2 > target.length, `${right} of ${said} are right`);
        case "most_wrong":
          return holds(wrong * 2 > target.length, `${wrong} of ${said} are wrong`);
        case "no_answers":
          return holds(f.answers.length === 0, `${f.label} has ${f.answers.length} answers`);
      }
    }
  }
}

export function refuteFraction(fr: Fraction, f: Facts): string | null {
  if (fr.of > f.answers.length) return `${f.label} has only ${f.answers.length} answers`;
  if (!fr.recent && fr.of !== f.answers.length && fr.polarity !== null)
    return `${f.label} has ${f.answers.length} answers, not ${fr.of}`;
  const window = f.answers.slice(0, fr.of);
  const wrong = wrongIn(window);
  if (fr.polarity === "wrong" && fr.part !== wrong) return `${wrong} of the newest ${fr.of} answers are wrong`;
  if (fr.polarity === "right" && fr.part !== fr.of - wrong)
    return `${fr.of - wrong} of the newest ${fr.of} answers are right`;
  return null;
}

/**
 * The claims of a text that none of the candidate facts bears out (each as `"claim": why`). A
 * claim holds when one candidate bears it out (a summary's sentence may speak of a point or of
 * the learner). `extra` are counts the output itself states elsewhere (a plan's minutes).
 */
export function unsupported(text: string, candidates: Facts[], extra: number[] = []): Unsupported[] {
  const bad: Unsupported[] = [];
  for (const clause of clausesOf(canonical(text))) {
    const { scope, claims, fractions } = claimsIn(clause);
    if (scope !== null && !candidates.some((f) => scope <= f.answers.length))
      bad.push({
        kind: "count",
        message: `"${clause.match(SCOPE)?.[0] ?? scope}": ${candidates[0]?.label ?? "it"} has only ${candidates[0]?.answers.length ?? 0} answers`,
      });
    for (const fr of fractions) {
      const why = candidates.map((f) => refuteFraction(fr, f));
      if (why.every((w) => w !== null)) bad.push({ kind: "count", message: `"${fr.text.trim()}": ${why[0]}` });
    }
    for (const c of claims) {
      const why = candidates.map((f) => refute(c, f, scope, extra));
      if (why.every((w) => w !== null))
        bad.push({
          kind: c.kind === "quantifier" ? "quantifier" : c.kind === "percent" ? "percent" : "count",
          message: `"${c.text}": ${why[0]}`,
        });
    }
  }
  return bad;
}

export type Unsupported = { kind: "count" | "percent" | "quantifier"; message: string };
