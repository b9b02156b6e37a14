import { norm, type SnapshotContent } from "../../fields";
import type { Flashcards } from "../../flashcard-generation/schema";
import type { AnyLearningAnalysis } from "../../learning-state-analysis/schema";
import type { NextActions } from "../../next-action-planning/schema";
import type { Quiz } from "../../quiz-generation/schema";
import { MASTERY_BAND, type Evidence, type Finding } from "../finding";
import { keyTermOf } from "../items";
import type { WeakPoints } from "../../weak-point-analysis/schema";
import { learnerFacts, pointFacts, type Facts } from "./facts";
import {
  closerPoint,
  definedTerm,
  shareOf,
  numberValues,
  othersNamed,
  quotedPart,
  sourceOf,
  supportOf,
  truthOf,
  verdictOf,
} from "./items";
import { namedClauses, withoutNames } from "./points";
import { clausesOf, unsupported, type Unsupported } from "./sentence";

/**
 * The claims rules: every number (in any form), every point named and every all/none/most a
 * learner reads is extracted and held to the snapshot's facts, in every type's sentences, at
 * every door (they run with the evidence rules). docs/evidence-rules.md has each with its test.
 */
export const CLAIM_RULES = {
  claim_count:
    "Every count a sentence states about its point (or, unattached, about the learner) — answers, right and wrong answers (of the newest N when it says 'last N'), reviews, Again ratings, forgotten cards, lapses, cards, due cards, today's now / later-today / held-back counts, in digits, Chinese numerals or English words — is the snapshot's.",
  claim_percent:
    "Every percentage a sentence states (digits, 百分之四十, 三成, 一半, 'forty percent', 'half') is one of its point's figures (the learner's overall mastery or the schedule's retention, forgotten cards counting as not retained, in an unattached sentence).",
  claim_quantifier:
    "Every all/none/most a sentence says of answers ('全部正确', '一次也没答对', 'none of her answers were right', 'most answers wrong') holds for them (the newest N when it says 'last N').",
  claim_point:
    "A sentence attached to a point names that point, or no point: never only another one. A summary's strongest and weakest points are the evidence's.",
  item_true_false_explanation:
    "A true/false explanation's verdict (True/False, 正确/错误, 'the statement is false') agrees with its answer.",
  item_asks_its_point:
    "A question's stem and a card's front ask about the point they are tagged with, not only another point.",
  item_from_material:
    "A card's back answers its front from its point's material: most of its words are in the point's title, description or material, and it does not speak only of another point. Numbers in an explanation or a back are the material's.",
} as const;

type Ctx = { snapshot: SnapshotContent; params: Record<string, unknown> };
type Add = (rule: keyof typeof CLAIM_RULES, path: string, message: string) => void;

/** The claims findings of an output of this type. */
export function claimFindings(jobType: string, output: unknown, ctx: Ctx, ev: Evidence): Finding[] {
  const found: Finding[] = [];
  const add: Add = (rule, path, message) => found.push({ rule, path, message });
  const check = CHECKS[jobType];
  if (check) check(output as never, ctx, ev, add);
  return found;
}

/** The texts from the snapshot a sentence may quote as they are (descriptions, questions, titles, the learner's name). */
function quotedOf(snapshot: SnapshotContent, kpId: string | null): string[] {
  const kp = kpId ? snapshot.knowledgePoints.find((k) => k.id === kpId) : undefined;
  return [
    snapshot.learner.name,
    ...snapshot.materials.map((m) => m.title),
    ...(kp ? [kp.description] : []),
    ...(kpId ? snapshot.quizAttempts.filter((a) => a.knowledgePointId === kpId).map((a) => a.question) : []),
  ];
}

function report(add: Add, path: string, bad: Unsupported[]) {
  for (const b of bad)
    add(
      b.kind === "quantifier" ? "claim_quantifier" : b.kind === "percent" ? "claim_percent" : "claim_count",
      path,
      b.message,
    );
}

/** A sentence attached to a point (or to the learner as a whole when `kpId` is null). */
function attached(
  text: string,
  kpId: string | null,
  path: string,
  ctx: Ctx,
  ev: Evidence,
  add: Add,
  extra: number[] = [],
) {
  const s = kpId ? ev.byId.get(kpId) : undefined;
  if (kpId && !s) return;
  const facts = s ? pointFacts(s) : learnerFacts(ctx.snapshot, ev);
  // The point's own name leading the sentence ("1: not practised yet"), however short.
  const own = s ? norm(s.kp.title.trim() || s.kp.id) : "";
  // A name too short to look for ("1") is taken out wherever it stands alone.
  const said = !own
    ? text
    : [...own].length < 2
      ? norm(text).replace(
          new RegExp(`(?<![\\p{L}\\d])${own.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")}(?![\\p{L}\\d])`, "gu"),
          "§",
        )
      : norm(text).startsWith(own)
        ? `§${norm(text).slice(own.length)}`
        : text;
  report(add, path, unsupported(withoutNames(said, ctx.snapshot, quotedOf(ctx.snapshot, kpId)), [facts], extra));
  if (s) {
    const { own, others } = othersNamed(text, s.kp.id, ctx.snapshot);
    if (!own && others.length)
      add(
        "claim_point",
        path,
        `the sentence is attached to "${s.kp.title}" but speaks of ${others.map((o) => `"${ev.byId.get(o)?.kp.title ?? o}"`).join(", ")}`,
      );
  }
}

/** A free sentence (a summary, a v1 strength): each clause is held to the points it names, or to the learner. */
function free(text: string, path: string, ctx: Ctx, ev: Evidence, add: Add) {
  const learner = learnerFacts(ctx.snapshot, ev);
  for (const clause of namedClauses(text, ctx.snapshot, quotedOf(ctx.snapshot, null), clausesOf)) {
    // Points whose names are too short to look for (one Latin letter) may be spoken of anywhere.
    const unnamed = ev.stats.filter((x) => [...norm(x.kp.title.trim() || x.kp.id)].length < 2).map(pointFacts);
    const facts: Facts[] = [
      ...unnamed,
      ...clause.ids.flatMap((id) => (ev.byId.has(id) ? [pointFacts(ev.byId.get(id)!)] : [])),
      learner,
    ];
    report(add, path, unsupported(clause.text, facts));
  }
}

const STRONGEST =
  /掌握最好|掌握得最好|最擅长|最强|最扎实|最拿手|strongest|best[- ]known|knows best|best at|strongest point/u;
const WEAKEST = /最需要加强|最薄弱|最弱|最差|weakest|needs the most work|worst/u;

/** The summary's strongest and weakest points are the evidence's. */
function superlatives(v: AnyLearningAnalysis, ctx: Ctx, ev: Evidence, add: Add) {
  const known = ev.stats.filter((s) => s.evidence > 0);
  const best = Math.max(...known.map((s) => s.mastery));
  const worst = Math.min(...known.map((s) => s.mastery));
  for (const clause of namedClauses(v.summary, ctx.snapshot, quotedOf(ctx.snapshot, null), clausesOf)) {
    const named = clause.ids.flatMap((id) => (ev.byId.has(id) ? [ev.byId.get(id)!] : []));
    if (named.length !== 1) continue;
    const s = named[0]!;
    const strongestId = "strongestKnowledgePointId" in v ? v.strongestKnowledgePointId : undefined;
    const said = clause.text;
    if (STRONGEST.test(said) && !WEAKEST.test(said)) {
      const wrong =
        strongestId !== undefined
          ? strongestId !== s.kp.id
          : !s.evidence || s.mastery < best - MASTERY_BAND || !!s.review?.forgotten;
      if (wrong)
        add("claim_point", "summary", `the summary calls "${s.kp.title}" the strongest point; the evidence does not`);
    }
    if (WEAKEST.test(said) && !STRONGEST.test(said) && (!s.evidence || s.mastery > worst + MASTERY_BAND))
      add(
        "claim_point",
        "summary",
        `the summary calls "${s.kp.title}" the weakest point; its mastery is not near the lowest`,
      );
  }
}

type Check = (output: never, ctx: Ctx, ev: Evidence, add: Add) => void;
const CHECKS: Record<string, Check> = {
  learning_state_analysis: ((v: AnyLearningAnalysis, ctx, ev, add) => {
    free(v.summary, "summary", ctx, ev, add);
    superlatives(v, ctx, ev, add);
    (["strengths", "risks"] as const).forEach((key) =>
      v[key].forEach((x: string | { knowledgePointId: string | null; text: string }, i: number) =>
        typeof x === "string"
          ? free(x, `${key}.${i}`, ctx, ev, add)
          : attached(x.text, x.knowledgePointId, `${key}.${i}.text`, ctx, ev, add),
      ),
    );
  }) as Check,
  weak_point_analysis: ((v: WeakPoints, ctx, ev, add) => {
    v.weakPoints.forEach((w, i) => {
      w.evidence.forEach((e, k) => attached(e, w.knowledgePointId, `weakPoints.${i}.evidence.${k}`, ctx, ev, add));
      attached(w.suggestedReview, w.knowledgePointId, `weakPoints.${i}.suggestedReview`, ctx, ev, add);
    });
  }) as Check,
  next_action_planning: ((v: NextActions, ctx, ev, add) => {
    v.actions.forEach((a, i) => {
      const kpId = a.target.type === "knowledge_point" ? a.target.id : null;
      const extra = [a.estimatedMinutes, Number(ctx.params.timeBudgetMinutes ?? 0)];
      attached(a.title, kpId, `actions.${i}.title`, ctx, ev, add, extra);
      attached(a.reason, kpId, `actions.${i}.reason`, ctx, ev, add, extra);
    });
  }) as Check,
  quiz_generation: ((v: Quiz, ctx, ev, add) => {
    v.questions.forEach((q, i) => {
      const kp = ev.byId.get(q.knowledgePointId)?.kp;
      if (!kp) return;
      if (q.type === "true_false") {
        const answer = truthOf(q.answer);
        const verdict = verdictOf(q.explanation);
        if (answer !== null && verdict !== null && answer !== verdict)
          add(
            "item_true_false_explanation",
            `questions.${i}.explanation`,
            `the answer is "${q.answer}" but the explanation calls the statement ${verdict ? "true" : "false"}`,
          );
      }
      itsPoint(q.stem, q.knowledgePointId, `questions.${i}.stem`, ctx, ev, add, q.type === "true_false");
      // An explanation may name any point (a swapped term's own point).
      const titles = ctx.snapshot.knowledgePoints.map((k) => k.title.trim() || k.id);
      const source = [sourceOf(ctx.snapshot, q.knowledgePointId), q.stem, ...q.options, q.answer, ...titles].join("\n");
      numbersFrom(q.explanation, source, `questions.${i}.explanation`, add);
    });
  }) as Check,
  flashcard_generation: ((v: Flashcards, ctx, ev, add) => {
    v.flashcards.forEach((c, i) => {
      const kp = ev.byId.get(c.knowledgePointId)?.kp;
      if (!kp) return;
      itsPoint(c.front, c.knowledgePointId, `flashcards.${i}.front`, ctx, ev, add);
      const source = sourceOf(ctx.snapshot, c.knowledgePointId);
      // The source section's label ("Source:", "原文：") is the format's word, not the material's.
      const support = supportOf(c.back.replace(SOURCE_LABEL, "$1"), `${source}\n${c.front}`);
      const cloze = BLANK.test(c.front);
      // A cloze's back holds its sentence; a question's back speaks of its point.
      const { own, others } = othersNamed(c.back, c.knowledgePointId, ctx.snapshot);
      const closer = cloze ? null : closerPoint(c.back, c.knowledgePointId, ctx.snapshot);
      // A back that defines another point ("… 叫做电阻", "Voltage is …") answers another front.
      const defined = definedTerm(c.back);
      const definesOther = defined ? othersNamed(defined, c.knowledgePointId, ctx.snapshot) : null;
      const definedOther = !!definesOther && !definesOther.own && definesOther.others.length > 0;
      if (definedOther) others.push(...definesOther.others.filter((o) => !others.includes(o)));
      const offPoint = cloze
        ? supportOf(quotedPart(c.front).replace(/_{3,}/gu, " "), c.back) < 0.6
        : (!own && others.length > 0) || closer !== null || definedOther;
      if (closer && !others.includes(closer)) others.push(closer);
      if (offPoint || support < 0.6)
        add(
          "item_from_material",
          `flashcards.${i}.back`,
          offPoint
            ? `the back does not answer the front about "${kp.title}"${others.length ? `: it speaks of ${others.map((o) => `"${ev.byId.get(o)?.kp.title}"`).join(", ")}` : ""}`
            : `${Math.round(support * 100)} % of the back's words are in "${kp.title}"'s material: it does not answer the front from the material`,
        );
      numbersFrom(c.back, `${source}\n${c.front}`, `flashcards.${i}.back`, add);
    });
  }) as Check,
};

/** The label opening a card back's source section (flashcard-generation: "Source: …", "原文：…"). */
const SOURCE_LABEL = /(^|\n)[ \t]*(?:source|原文)[ \t]*[:：]/giu;

/** A blank to fill: "_____" standing alone (not inside an id such as "a___b"), "（ ）". */
const BLANK = /(?<![a-z\d])_{3,}(?![a-z\d])|（\s*）|\(\s*\)/iu;

function itsPoint(text: string, kpId: string, path: string, ctx: Ctx, ev: Evidence, add: Add, statement = false) {
  const { own, others } = othersNamed(text, kpId, ctx.snapshot);
  if (own) return;
  // Speaks of another point: its words are another's more than its own, or it names another whose
  // words it shares at least as much (a statement with a sibling's term swapped in keeps its own point's words).
  const q = quotedPart(text);
  // A cloze quoting its point's material asks about that material.
  if (BLANK.test(q) && q.split(/_{3,}/u).every((part) => norm(sourceOf(ctx.snapshot, kpId)).includes(norm(part))))
    return;
  // So does a statement lifted from its point's material (the lead-in "True or false:" aside).
  const lifted = text.replace(/^[^:：]{1,16}[:：]\s*/u, "");
  if (supportOf(lifted, sourceOf(ctx.snapshot, kpId)) >= 0.85) return;
  const ownShare = shareOf(q, kpId, ctx.snapshot);
  const closer = closerPoint(q, kpId, ctx.snapshot);
  // A question or a card's front that names another point asks about it; a true/false statement
  // may name a sibling in place of its own point (the false statement of a swapped term).
  const described = !!ev.byId.get(kpId)?.kp.description.trim();
  const kp = ev.byId.get(kpId)?.kp;
  const nameOf = (id: string) => {
    const k = ev.byId.get(id)!.kp;
    return norm(keyTermOf(k.title.trim() || k.id));
  };
  // A sibling's name swapped into its own point's description: put back, it is the description.
  const swapped = (o: string) => !!kp && supportOf(kp.description, norm(q).split(nameOf(o)).join(nameOf(kpId))) >= 0.8;
  const named = statement
    ? described
      ? others.filter((o) => shareOf(q, o, ctx.snapshot) > ownShare && !swapped(o))
      : []
    : others;
  const closerOff = closer && !(statement && swapped(closer)) ? [closer] : [];
  const off = [...new Set([...closerOff, ...named])];
  if (!off.length) return;
  add(
    "item_asks_its_point",
    path,
    `tagged "${ev.byId.get(kpId)?.kp.title}" but asks about ${off.map((o) => `"${ev.byId.get(o)?.kp.title}"`).join(", ")}`,
  );
}

function numbersFrom(text: string, source: string, path: string, add: Add) {
  const have = numberValues(source);
  const bad = numberValues(text).filter((n) => !have.some((h) => Math.abs(h - n) < 1e-9));
  if (bad.length) add("item_from_material", path, `${bad.join(", ")} is not in the material`);
}
