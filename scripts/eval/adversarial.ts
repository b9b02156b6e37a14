import Nzh from "nzh";
import { jobTypeOf, OUTPUT_SCHEMA_VERSION, type JobTypeName } from "../../server/job-types";
import { evidenceFindings } from "../../server/job-types/evidence";
import type { SnapshotContent } from "../../server/job-types/fields";
import type { Flashcards } from "../../server/job-types/flashcard-generation/schema";
import type { LearningAnalysis } from "../../server/job-types/learning-state-analysis/schema";
import type { NextActions } from "../../server/job-types/next-action-planning/schema";
import type { Quiz } from "../../server/job-types/quiz-generation/schema";
import { knowledgeStats, type KpStats } from "../../server/job-types/shared/statistics";
import { titleOf } from "../../server/job-types/shared/text";
import type { WeakPoints } from "../../server/job-types/weak-point-analysis/schema";
import { checkOutput } from "../../server/jobs/quality";
import { isJobFailure } from "../../server/pipeline/errors";
import type { Learner } from "./learners";

/**
 * The adversarial evaluation: contradictions written into the offline analyzers' clean outputs,
 * in many phrasings in both languages, each run through both doors — the pipeline's quality
 * stage (the API's rules, the type's quality checks, the evidence rules with the job's params
 * and language) and the API's check on a submitted result (`checkResult`, server/jobs/results.ts:
 * the API's rules, then the evidence rules with the stored schema version) — counted caught when
 * the door finds anything (the clean output it was written into has no finding).
 *
 * Each kind has several wordings, listed Chinese, English, Chinese, English, …; the split is
 * fixed by position: wordings at even positions (0, 2, …) are the tuning half, at odd positions
 * (1, 3, …) the held-out half, which the rules were not tuned on.
 */
export type Wording = { lang: "zh-CN" | "en"; write: (c: Ctx) => unknown | null };
export type Kind = { name: string; type: JobTypeName; wordings: Wording[] };

type Ctx = { snapshot: SnapshotContent; stats: KpStats[]; output: unknown; title: (s: KpStats) => string };

const zh = (n: number) => Nzh.cn.encodeS(n) as string;
const ONES =
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(
    " ",
  );
const TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split(" ");
export function en(n: number): string {
  if (n < 20) return ONES[n]!;
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? `-${ONES[n % 10]}` : "");
  return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` and ${en(n % 100)}` : ""}`;
}
const fullWidth = (n: number) => String(n).replace(/\d/gu, (d) => String.fromCharCode(0xff10 + Number(d)));
const wrongOf = (s: KpStats) => s.attempts.filter((a) => !a.correct).length;
const rightOf = (s: KpStats) => s.attempts.length - wrongOf(s);
/** A percentage (whole, a multiple of 10 for "三成") that is none of the point's figures. */
function falsePercent(s: KpStats | null, tens = false): number {
  const share = s ? rightOf(s) / Math.max(1, s.attempts.length) : 0;
  // Every figure a sentence may quote, and the shares of wrong answers.
  const figures = s
    ? [s.mastery, s.quizMastery, 1 - s.quizMastery, s.review?.retrievability ?? -1, share, 1 - share]
    : [];
  for (const p of tens ? [40, 70, 20, 90, 10, 60] : [43, 77, 18, 64, 91, 36])
    if (figures.every((f) => Math.abs(f - p / 100) > 0.05)) return p;
  return 55;
}

type LS = LearningAnalysis;
const ls = (c: Ctx) => structuredClone(c.output) as LS;
/** A point with answers, as the first wording needs it (null: this learner has none). */
const pick = (c: Ctx, ok: (s: KpStats) => boolean) => c.stats.find(ok) ?? null;
/** Puts a sentence about point `s` first among the risks (or strengths, if it is a strength). */
function sayAbout(c: Ctx, s: KpStats, text: string): LS {
  const o = ls(c);
  const i = o.strengths.findIndex((x) => x.knowledgePointId === s.kp.id);
  if (i >= 0) o.strengths[i] = { knowledgePointId: s.kp.id, text };
  else {
    const j = o.risks.findIndex((x) => x.knowledgePointId === s.kp.id);
    if (j >= 0) o.risks[j] = { knowledgePointId: s.kp.id, text };
    else o.risks = [{ knowledgePointId: s.kp.id, text }, ...o.risks].slice(0, 20);
  }
  return o;
}
const summary = (c: Ctx, add: string): LS => {
  const o = ls(c);
  o.summary = `${o.summary} ${add}`.slice(0, 2000);
  return o;
};
const about =
  (ok: (s: KpStats) => boolean, text: (s: KpStats, c: Ctx) => string): Wording["write"] =>
  (c) => {
    const s = pick(c, ok);
    return s ? sayAbout(c, s, text(s, c)) : null;
  };
const inSummary =
  (ok: (c: Ctx) => boolean, text: (c: Ctx) => string): Wording["write"] =>
  (c) =>
    ok(c) ? summary(c, text(c)) : null;

const anyWrong = (c: Ctx) => c.stats.some((s) => wrongOf(s) > 0);
const anyRight = (c: Ctx) => c.stats.some((s) => rightOf(s) > 0);
const totalAnswers = (c: Ctx) => c.snapshot.quizAttempts.length;
/** The newest 4 (or all, if fewer, at least 2) answers are not all wrong. */
const recentNotAllWrong = (s: KpStats) => s.attempts.length >= 2 && s.attempts.slice(0, 4).some((a) => a.correct);
const recentN = (s: KpStats) => Math.min(4, s.attempts.length);
const mostlyWrong = (s: KpStats) => s.attempts.length >= 2 && wrongOf(s) * 2 > s.attempts.length;
const mostlyRight = (s: KpStats) => s.attempts.length >= 2 && rightOf(s) * 2 > s.attempts.length;
const hasAnswers = (s: KpStats) => s.attempts.length > 0;
const wrongCountOff = (s: KpStats) => wrongOf(s) + 2;
const reviewed = (s: KpStats) => (s.review?.reviews ?? 0) > 0;
const forgotten = (c: Ctx) => c.stats.some((s) => (s.review?.forgotten ?? 0) > 0);
const known = (c: Ctx) => c.stats.filter((s) => s.evidence > 0);
const weakestOf = (c: Ctx) => [...known(c)].sort((a, b) => a.mastery - b.mastery)[0];
const strongestOf = (c: Ctx) => [...known(c)].sort((a, b) => b.mastery - a.mastery)[0];
const spread = (c: Ctx) => {
  const w = weakestOf(c);
  const b = strongestOf(c);
  return !!w && !!b && b.mastery - w.mastery > 0.3;
};

/** Another point than `s`, with a name of its own (not part of `s`'s title). */
function other(c: Ctx, s: KpStats): KpStats | null {
  const own = c.title(s);
  return (
    c.stats.find((o) => o !== s && !own.includes(c.title(o)) && !c.title(o).includes(own) && c.title(o).length >= 2) ??
    null
  );
}

type WP = WeakPoints;
const evidenceLine =
  (ok: (s: KpStats) => boolean, text: (s: KpStats) => string): Wording["write"] =>
  (c) => {
    const o = structuredClone(c.output) as WP;
    const i = o.weakPoints.findIndex((w) => {
      const s = c.stats.find((x) => x.kp.id === w.knowledgePointId);
      return !!s && ok(s);
    });
    if (i < 0) return null;
    const s = c.stats.find((x) => x.kp.id === o.weakPoints[i]!.knowledgePointId)!;
    o.weakPoints[i]!.evidence = [text(s), ...o.weakPoints[i]!.evidence].slice(0, 10);
    return o;
  };

type NA = NextActions;
const planReason =
  (
    ok: (s: KpStats) => boolean,
    text: (s: KpStats, c: Ctx) => string,
    field: "reason" | "title" = "reason",
  ): Wording["write"] =>
  (c) => {
    const o = structuredClone(c.output) as NA;
    const i = o.actions.findIndex((a) => {
      const s = a.target.type === "knowledge_point" ? c.stats.find((x) => x.kp.id === a.target.id) : undefined;
      return !!s && ok(s);
    });
    if (i < 0) return null;
    const s = c.stats.find((x) => x.kp.id === o.actions[i]!.target.id)!;
    o.actions[i] = { ...o.actions[i]!, [field]: text(s, c) };
    return o;
  };

const quizItem =
  (
    ok: (q: Quiz["questions"][number]) => boolean,
    change: (q: Quiz["questions"][number], c: Ctx) => Partial<Quiz["questions"][number]> | null,
  ): Wording["write"] =>
  (c) => {
    const o = structuredClone(c.output) as Quiz;
    for (const [i, q] of o.questions.entries()) {
      if (!ok(q)) continue;
      const patch = change(q, c);
      if (!patch) continue;
      o.questions[i] = { ...q, ...patch };
      return o;
    }
    return null;
  };
const isTrue = (q: Quiz["questions"][number]) => q.type === "true_false" && /^(true|正确)$/iu.test(q.answer);
const isFalse = (q: Quiz["questions"][number]) => q.type === "true_false" && /^(false|错误)$/iu.test(q.answer);
const otherOfItem = (c: Ctx, kpId: string) => {
  const s = c.stats.find((x) => x.kp.id === kpId);
  return s ? other(c, s) : null;
};

const cardBack =
  (change: (card: Flashcards["flashcards"][number], c: Ctx) => string | null): Wording["write"] =>
  (c) => {
    const o = structuredClone(c.output) as Flashcards;
    for (const [i, card] of o.flashcards.entries()) {
      const back = change(card, c);
      if (!back) continue;
      o.flashcards[i] = { ...card, back };
      return o;
    }
    return null;
  };
const otherDescription = (c: Ctx, kpId: string) => {
  const s = c.stats.find((x) => x.kp.id === kpId);
  const o = s ? other(c, s) : null;
  return o && o.kp.description.trim().length >= 6 && o.kp.description !== s!.kp.description ? o : null;
};

/** The kinds of contradiction, each in several wordings (zh, en, zh, en, …: even positions tune, odd are held out). */
export const KINDS: Kind[] = [
  {
    name: "summary: every answer right",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: inSummary(anyWrong, () => "她的作答全部正确。") },
      { lang: "en", write: inSummary(anyWrong, () => "All her answers were correct.") },
      { lang: "zh-CN", write: inSummary(anyWrong, () => "她一次也没答错。") },
      { lang: "en", write: inSummary(anyWrong, () => "She never got one wrong.") },
      { lang: "zh-CN", write: inSummary(anyWrong, () => "每道题都做对了。") },
      { lang: "en", write: inSummary(anyWrong, () => "Every answer was right.") },
    ],
  },
  {
    name: "summary: every answer wrong",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: inSummary(anyRight, () => "她的作答全部错误。") },
      { lang: "en", write: inSummary(anyRight, () => "Every answer was wrong.") },
      { lang: "zh-CN", write: inSummary(anyRight, () => "她一次也没答对。") },
      { lang: "en", write: inSummary(anyRight, () => "None of her answers were right.") },
      { lang: "zh-CN", write: inSummary(anyRight, () => "她从来没答对过。") },
      { lang: "en", write: inSummary(anyRight, () => "She never answered correctly.") },
    ],
  },
  {
    name: "a point's newest answers all wrong (numerals, words)",
    type: "learning_state_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: about(recentNotAllWrong, (s, c) => `${c.title(s)}：最近${zh(recentN(s))}次作答全部错误`),
      },
      {
        lang: "en",
        write: about(recentNotAllWrong, (s, c) => `${c.title(s)}: the last ${en(recentN(s))} answers were all wrong`),
      },
      {
        lang: "zh-CN",
        write: about(recentNotAllWrong, (s, c) => `${c.title(s)}：最近${fullWidth(recentN(s))}次作答都错了`),
      },
      {
        lang: "en",
        write: about(recentNotAllWrong, (s, c) => `${c.title(s)}: all of her last ${recentN(s)} answers were wrong`),
      },
    ],
  },
  {
    name: "a point's answers counted wrong (numerals, words)",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：共作答${zh(s.attempts.length + 3)}次`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: over ${en(s.attempts.length + 3)} answers`) },
      {
        lang: "zh-CN",
        write: about(hasAnswers, (s, c) => `${c.title(s)}：一共做了${fullWidth(s.attempts.length + 3)}道题`),
      },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: answered ${en(s.attempts.length + 3)} times`) },
    ],
  },
  {
    name: "a percentage no figure gives (in words)",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：掌握度百分之${zh(falsePercent(s))}`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: ${en(falsePercent(s))} percent mastery`) },
      {
        lang: "zh-CN",
        write: about(hasAnswers, (s, c) => `${c.title(s)}：只掌握了${zh(falsePercent(s, true) / 10)}成`),
      },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: mastery of ${en(falsePercent(s))} per cent`) },
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：掌握度 ${fullWidth(falsePercent(s))}％`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: ${falsePercent(s)}% of it known`) },
    ],
  },
  {
    name: "wrong answers counted wrong",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：答错了${zh(wrongCountOff(s))}次`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: ${en(wrongCountOff(s))} wrong answers`) },
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：有${zh(wrongCountOff(s))}道题做错`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: she got ${en(wrongCountOff(s))} wrong`) },
    ],
  },
  {
    name: "a fraction of answers wrong that is not so",
    type: "learning_state_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: about(
          (s) => s.attempts.length >= 2,
          (s, c) =>
            `${c.title(s)}：最近${zh(recentN(s))}次中${zh((wrongOf({ ...s, attempts: s.attempts.slice(0, recentN(s)) }) + 1) % (recentN(s) + 1))}次答错`,
        ),
      },
      {
        lang: "en",
        write: about(
          (s) => s.attempts.length >= 2,
          (s, c) =>
            `${c.title(s)}: ${en((wrongOf({ ...s, attempts: s.attempts.slice(0, recentN(s)) }) + 1) % (recentN(s) + 1))} of the last ${en(recentN(s))} answers wrong`,
        ),
      },
      {
        lang: "zh-CN",
        write: about(
          (s) => s.attempts.length >= 2,
          (s, c) =>
            `${c.title(s)}：最近 ${recentN(s)} 次作答中有 ${(wrongOf({ ...s, attempts: s.attempts.slice(0, recentN(s)) }) + 1) % (recentN(s) + 1)} 次错误`,
        ),
      },
      {
        lang: "en",
        write: about(
          (s) => s.attempts.length >= 2,
          (s, c) =>
            `${c.title(s)}: ${(wrongOf({ ...s, attempts: s.attempts.slice(0, recentN(s)) }) + 1) % (recentN(s) + 1)}/${recentN(s)} of her latest answers were incorrect`,
        ),
      },
    ],
  },
  {
    name: "reviews counted wrong",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(reviewed, (s, c) => `${c.title(s)}：复习${zh(s.review!.reviews + 2)}次`) },
      { lang: "en", write: about(reviewed, (s, c) => `${c.title(s)}: ${en(s.review!.reviews + 2)} reviews`) },
      {
        lang: "zh-CN",
        write: about(reviewed, (s, c) => `${c.title(s)}：已经复习了${fullWidth(s.review!.reviews + 2)}次`),
      },
      { lang: "en", write: about(reviewed, (s, c) => `${c.title(s)}: reviewed ${en(s.review!.reviews + 2)} times`) },
    ],
  },
  {
    name: "forgotten cards counted wrong",
    type: "learning_state_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: about(reviewed, (s, c) => `${c.title(s)}：${zh(s.review!.forgotten + 2)}张卡片在最近一次复习时忘记了`),
      },
      {
        lang: "en",
        write: about(
          reviewed,
          (s, c) => `${c.title(s)}: ${en(s.review!.forgotten + 2)} cards forgotten at the latest review`,
        ),
      },
      {
        lang: "zh-CN",
        write: about(reviewed, (s, c) =>
          `${c.title(s)}：上次复习时忘掉了${zh(s.review!.forgotten + 2)}张卡片`.replace(
            /忘掉了(.+)张卡片/u,
            "$1张卡片被忘掉",
          ),
        ),
      },
      {
        lang: "en",
        write: about(reviewed, (s, c) => `${c.title(s)}: she forgot ${en(s.review!.forgotten + 2)} cards`),
      },
    ],
  },
  {
    name: "a sentence attached to one point speaks of another",
    type: "learning_state_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: (c) => {
          const s = pick(c, (x) => !!other(c, x));
          return s ? sayAbout(c, s, `${c.title(other(c, s)!)}：需要加强`) : null;
        },
      },
      {
        lang: "en",
        write: (c) => {
          const s = pick(c, (x) => !!other(c, x));
          return s ? sayAbout(c, s, `${c.title(other(c, s)!)}: needs more work`) : null;
        },
      },
      {
        lang: "zh-CN",
        write: (c) => {
          const s = pick(c, (x) => !!other(c, x));
          return s ? sayAbout(c, s, `要多练习“${c.title(other(c, s)!)}”`) : null;
        },
      },
      {
        lang: "en",
        write: (c) => {
          const s = pick(c, (x) => !!other(c, x));
          return s ? sayAbout(c, s, `Keep practising ${c.title(other(c, s)!)}`) : null;
        },
      },
    ],
  },
  {
    name: "summary: the weakest point called the strongest",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: inSummary(spread, (c) => `掌握最好：${c.title(weakestOf(c)!)}。`) },
      { lang: "en", write: inSummary(spread, (c) => `Strongest: ${c.title(weakestOf(c)!)}.`) },
      { lang: "zh-CN", write: inSummary(spread, (c) => `她最擅长的是${c.title(weakestOf(c)!)}。`) },
      { lang: "en", write: inSummary(spread, (c) => `She knows ${c.title(weakestOf(c)!)} best.`) },
    ],
  },
  {
    name: "summary: the strongest point called the weakest",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: inSummary(spread, (c) => `最需要加强：${c.title(strongestOf(c)!)}。`) },
      { lang: "en", write: inSummary(spread, (c) => `Needs the most work: ${c.title(strongestOf(c)!)}.`) },
      { lang: "zh-CN", write: inSummary(spread, (c) => `最薄弱的是${c.title(strongestOf(c)!)}。`) },
      { lang: "en", write: inSummary(spread, (c) => `Her weakest point is ${c.title(strongestOf(c)!)}.`) },
    ],
  },
  {
    name: "summary: 100 % recall with a card just forgotten",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: inSummary(forgotten, () => "预计记忆保持率 100%。") },
      { lang: "en", write: inSummary(forgotten, () => "Predicted recall is 100%.") },
      { lang: "zh-CN", write: inSummary(forgotten, () => "预计记忆保持率为百分之百。") },
      { lang: "en", write: inSummary(forgotten, () => "Predicted recall: one hundred percent.") },
    ],
  },
  {
    name: "summary: answers in all counted wrong",
    type: "learning_state_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: inSummary(
          () => true,
          (c) => `她一共作答${zh(totalAnswers(c) + 5)}次。`,
        ),
      },
      {
        lang: "en",
        write: inSummary(
          () => true,
          (c) => `She gave ${en(totalAnswers(c) + 5)} answers in all.`,
        ),
      },
      {
        lang: "zh-CN",
        write: inSummary(
          () => true,
          (c) => `累计答题${fullWidth(totalAnswers(c) + 5)}道。`,
        ),
      },
      {
        lang: "en",
        write: inSummary(
          () => true,
          (c) => `She has answered ${en(totalAnswers(c) + 5)} questions.`,
        ),
      },
    ],
  },
  {
    name: "most answers right / wrong, not so",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(mostlyWrong, (s, c) => `${c.title(s)}：大多数作答正确`) },
      { lang: "en", write: about(mostlyWrong, (s, c) => `${c.title(s)}: most of her answers were right`) },
      { lang: "zh-CN", write: about(mostlyRight, (s, c) => `${c.title(s)}：大部分题目都答错了`) },
      { lang: "en", write: about(mostlyRight, (s, c) => `${c.title(s)}: mostly wrong`) },
    ],
  },
  {
    name: "a point with answers said to have none",
    type: "learning_state_analysis",
    wordings: [
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：尚未作答`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: not answered yet`) },
      { lang: "zh-CN", write: about(hasAnswers, (s, c) => `${c.title(s)}：还没有做题`) },
      { lang: "en", write: about(hasAnswers, (s, c) => `${c.title(s)}: she has never practised it`) },
    ],
  },
  {
    name: "weak-point evidence: every answer right",
    type: "weak_point_analysis",
    wordings: [
      {
        lang: "zh-CN",
        write: evidenceLine(
          (s) => wrongOf(s) > 0,
          (s) => `最近${zh(Math.min(4, s.attempts.length))}次作答全部正确`,
        ),
      },
      {
        lang: "en",
        write: evidenceLine(
          (s) => wrongOf(s) > 0,
          () => "All of her answers were correct",
        ),
      },
      {
        lang: "zh-CN",
        write: evidenceLine(
          (s) => wrongOf(s) > 0,
          () => "一次也没答错",
        ),
      },
      {
        lang: "en",
        write: evidenceLine(
          (s) => wrongOf(s) > 0,
          () => "She never got one wrong",
        ),
      },
    ],
  },
  {
    name: "weak-point evidence: counts in words",
    type: "weak_point_analysis",
    wordings: [
      { lang: "zh-CN", write: evidenceLine(hasAnswers, (s) => `共作答${zh(s.attempts.length + 2)}次`) },
      { lang: "en", write: evidenceLine(hasAnswers, (s) => `Mastery over ${en(s.attempts.length + 2)} answers`) },
      { lang: "zh-CN", write: evidenceLine(hasAnswers, (s) => `答错${zh(wrongCountOff(s))}次`) },
      { lang: "en", write: evidenceLine(hasAnswers, (s) => `${en(wrongCountOff(s))} mistakes so far`) },
    ],
  },
  {
    name: "weak-point evidence: due cards in words",
    type: "weak_point_analysis",
    wordings: [
      { lang: "zh-CN", write: evidenceLine(reviewed, (s) => `它有${zh(s.review!.dueCards + 3)}张卡片到期待复习。`) },
      {
        lang: "en",
        write: evidenceLine(reviewed, (s) => `${en(s.review!.dueCards + 3)} of its cards are due for review.`),
      },
      { lang: "zh-CN", write: evidenceLine(reviewed, (s) => `今天要复习${zh(s.review!.dueCards + 3)}张`) },
      { lang: "en", write: evidenceLine(reviewed, (s) => `${en(s.review!.dueCards + 3)} due cards`) },
    ],
  },
  {
    name: "plan: a due count in words",
    type: "next_action_planning",
    wordings: [
      {
        lang: "zh-CN",
        write: planReason(
          () => true,
          (s) => `${zh((s.review?.dueCards ?? 0) + 4)}张卡片到期待复习。`,
        ),
      },
      {
        lang: "en",
        write: planReason(
          () => true,
          (s) => `${en((s.review?.dueCards ?? 0) + 4)} cards due for review.`,
        ),
      },
      {
        lang: "zh-CN",
        write: planReason(
          () => true,
          (s, c) => `复习“${c.title(s)}”的${zh((s.review?.dueCards ?? 0) + 4)}张到期卡片`,
          "title",
        ),
      },
      {
        lang: "en",
        write: planReason(
          () => true,
          (s) => `You have ${en((s.review?.dueCards ?? 0) + 4)} cards due today.`,
        ),
      },
    ],
  },
  {
    name: "plan: invented wrong answers",
    type: "next_action_planning",
    wordings: [
      {
        lang: "zh-CN",
        write: planReason(
          () => true,
          (s) => `你最近答错了${zh(wrongCountOff(s))}道题，需要再练。`,
        ),
      },
      {
        lang: "en",
        write: planReason(
          () => true,
          (s) => `You got ${en(wrongCountOff(s))} wrong recently.`,
        ),
      },
      {
        lang: "zh-CN",
        write: planReason(
          () => true,
          (s) => `已经错了${zh(wrongCountOff(s))}次。`,
        ),
      },
      {
        lang: "en",
        write: planReason(
          () => true,
          (s) => `${en(wrongCountOff(s))} of your answers were incorrect.`,
        ),
      },
    ],
  },
  {
    name: "plan: a reason about another point",
    type: "next_action_planning",
    wordings: [
      {
        lang: "zh-CN",
        write: planReason(
          (s) => true && !!s,
          (s, c) => (other(c, s) ? `先巩固“${c.title(other(c, s)!)}”。` : ""),
        ),
      },
      {
        lang: "en",
        write: planReason(
          (s) => !!s,
          (s, c) => (other(c, s) ? `${c.title(other(c, s)!)} needs work first.` : ""),
        ),
      },
      {
        lang: "zh-CN",
        write: planReason(
          (s) => !!s,
          (s, c) => (other(c, s) ? `${c.title(other(c, s)!)}掌握得不好。` : ""),
        ),
      },
      {
        lang: "en",
        write: planReason(
          (s) => !!s,
          (s, c) => (other(c, s) ? `You are weak on ${c.title(other(c, s)!)}.` : ""),
        ),
      },
    ],
  },
  {
    name: "true/false explanation against its answer",
    type: "quiz_generation",
    wordings: [
      { lang: "zh-CN", write: quizItem(isTrue, (q) => ({ explanation: `该说法错误。${q.explanation}` })) },
      { lang: "en", write: quizItem(isTrue, (q) => ({ explanation: `This statement is false. ${q.explanation}` })) },
      { lang: "zh-CN", write: quizItem(isFalse, (q) => ({ explanation: `这个说法是正确的。${q.explanation}` })) },
      { lang: "en", write: quizItem(isFalse, (q) => ({ explanation: `True: ${q.explanation}` })) },
    ],
  },
  {
    name: "a question tagged with another point than it asks about",
    type: "quiz_generation",
    wordings: [
      {
        lang: "zh-CN",
        write: quizItem(
          () => true,
          (q, c) => {
            const o = otherOfItem(c, q.knowledgePointId);
            return o ? { stem: `什么是“${c.title(o)}”？` } : null;
          },
        ),
      },
      {
        lang: "en",
        write: quizItem(
          () => true,
          (q, c) => {
            const o = otherOfItem(c, q.knowledgePointId);
            return o ? { stem: `What is "${c.title(o)}"?` } : null;
          },
        ),
      },
      {
        lang: "zh-CN",
        write: quizItem(
          () => true,
          (q, c) => {
            const o = otherOfItem(c, q.knowledgePointId);
            return o ? { stem: `下列哪一项描述了${c.title(o)}？` } : null;
          },
        ),
      },
      {
        lang: "en",
        write: quizItem(
          () => true,
          (q, c) => {
            const o = otherOfItem(c, q.knowledgePointId);
            return o ? { stem: `Which statement describes ${c.title(o)}?` } : null;
          },
        ),
      },
    ],
  },
  {
    name: "a card back that does not answer its front",
    type: "flashcard_generation",
    wordings: [
      {
        lang: "zh-CN",
        write: cardBack((card, c) => {
          const o = otherDescription(c, card.knowledgePointId);
          return o && !/_{3}/u.test(card.front) ? o.kp.description : null;
        }),
      },
      {
        lang: "en",
        write: cardBack((card, c) => {
          const o = otherDescription(c, card.knowledgePointId);
          return o && !/_{3}/u.test(card.front) ? o.kp.description : null;
        }),
      },
      {
        lang: "zh-CN",
        write: cardBack((card, c) => {
          const o = otherDescription(c, card.knowledgePointId);
          return o && !/_{3}/u.test(card.front) ? `${c.title(o)}：${o.kp.description}` : null;
        }),
      },
      {
        lang: "en",
        write: cardBack((card, c) => {
          const o = otherDescription(c, card.knowledgePointId);
          return o && !/_{3}/u.test(card.front) ? `That is ${c.title(o)}: ${o.kp.description}` : null;
        }),
      },
      {
        lang: "zh-CN",
        write: cardBack((card) => (/_{3}/u.test(card.front) ? null : "这个概念与日常生活密切相关，需要多加练习。")),
      },
      {
        lang: "en",
        write: cardBack((card) =>
          /_{3}/u.test(card.front) ? null : "It is an important idea that you should practise often.",
        ),
      },
    ],
  },
  {
    name: "an explanation with a number the material does not give",
    type: "quiz_generation",
    wordings: [
      {
        lang: "zh-CN",
        write: quizItem(
          () => true,
          (q) => ({ explanation: `${q.explanation} 材料中一共列出了${zh(37)}个要点。` }),
        ),
      },
      {
        lang: "en",
        write: quizItem(
          () => true,
          (q) => ({ explanation: `${q.explanation} The material lists thirty-seven steps.` }),
        ),
      },
      {
        lang: "zh-CN",
        write: quizItem(
          () => true,
          (q) => ({ explanation: `${q.explanation} 约有百分之${zh(37)}的人会答错。` }),
        ),
      },
      {
        lang: "en",
        write: quizItem(
          () => true,
          (q) => ({ explanation: `${q.explanation} About 37 percent of learners miss this.` }),
        ),
      },
    ],
  },
];

/** A door's findings for an output: the pipeline's quality stage, or the API's check on a submitted result. */
function doors(
  type: JobTypeName,
  output: unknown,
  snapshot: SnapshotContent,
  params: Record<string, unknown>,
  locale: "en" | "zh-CN",
) {
  const hard = checkOutput(type, OUTPUT_SCHEMA_VERSION, output, {
    knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)),
    snapshot,
    params,
  });
  if (!hard.ok) return { pipeline: hard.violations.length, api: hard.violations.length };
  const pipeline =
    jobTypeOf(type).qualityChecks(hard.output, { snapshot, params, locale }).length +
    evidenceFindings(type, hard.output, { snapshot, params, locale, version: OUTPUT_SCHEMA_VERSION }).length;
  // As checkResult runs them: no params, no language, the stored schema version.
  const api = evidenceFindings(type, hard.output, { snapshot, version: OUTPUT_SCHEMA_VERSION }).length;
  return { pipeline, api };
}

export type KindTally = { name: string; type: string; tune: Half; heldOut: Half };
export type Half = { written: number; caughtPipeline: number; caughtApi: number; missed: string[] };
const PARAMS: Partial<Record<JobTypeName, Record<string, unknown>>> = {
  next_action_planning: { timeBudgetMinutes: 60 },
};

/** Every kind's wordings written into every fitting learner's clean output, through both doors. */
export function adversarial(list: Learner[]): { kinds: KindTally[]; cleanSkipped: number } {
  const half = (): Half => ({ written: 0, caughtPipeline: 0, caughtApi: 0, missed: [] });
  const kinds = KINDS.map((k) => ({ name: k.name, type: k.type, tune: half(), heldOut: half() }));
  let cleanSkipped = 0;
  const clean = new Map<string, unknown>();
  for (const l of list) {
    const stats = knowledgeStats(l.snapshot);
    for (const [ki, kind] of KINDS.entries()) {
      const params = jobTypeOf(kind.type).params.parse(PARAMS[kind.type] ?? {}) as Record<string, unknown>;
      const key = `${l.id}|${kind.type}`;
      if (!clean.has(key)) {
        let out: unknown = null;
        try {
          out = jobTypeOf(kind.type).analyse(l.snapshot, params, l.asOf, l.locale);
        } catch (e) {
          if (!isJobFailure(e)) throw e;
        }
        // Only outputs the doors pass clean take a contradiction (a finding must be the contradiction's).
        const d = out === null ? null : doors(kind.type, out, l.snapshot, params, l.locale);
        if (d && (d.pipeline || d.api)) cleanSkipped++;
        clean.set(key, d && !d.pipeline && !d.api ? out : null);
      }
      const output = clean.get(key);
      if (!output) continue;
      const ctx: Ctx = { snapshot: l.snapshot, stats, output, title: (s) => titleOf(s.kp) };
      kind.wordings.forEach((w, wi) => {
        if (w.lang !== l.locale) return;
        const bad = w.write(ctx);
        if (!bad || JSON.stringify(bad) === JSON.stringify(output)) return;
        const t = wi % 2 === 0 ? kinds[ki]!.tune : kinds[ki]!.heldOut;
        const d = doors(kind.type, bad, l.snapshot, params, l.locale);
        t.written++;
        if (d.pipeline) t.caughtPipeline++;
        if (d.api) t.caughtApi++;
        if ((!d.pipeline || !d.api) && t.missed.length < 2) t.missed.push(`${l.id} wording ${wi}`);
      });
    }
  }
  return { kinds, cleanSkipped };
}
