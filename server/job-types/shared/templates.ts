import type { Locale } from "../../i18n/locales";

type Level = "low" | "medium" | "high";

/**
 * Every sentence the local analyzer writes, in each learner language: one table, so a new
 * language is one more entry (TypeScript refuses a missing template). Server-side strings, not
 * the learner page's catalogues: they become the stored output of a job, in the job's `locale`.
 * Titles, descriptions and sentences from the snapshot are quoted as the learner wrote them.
 */
export type Templates = {
  /** Joins the summary's sentences. */
  sentenceGap: string;
  level: Record<Level, string>;
  learningState: {
    learner: string;
    strength(title: string, mastery: string, answers: number, reviews: number): string;
    risk(title: string, mastery: string, wrong: number, recent: number): string;
    notPractised(title: string): string;
    littleStudy(minutes: number): string;
    away(days: number): string;
    practised(name: string, practised: number, total: number, answers: number, mastery: string): string;
    engagement(level: Level, minutes: number): string;
    strongest(title: string, mastery: string): string;
    weakest(title: string, mastery: string): string;
    /** Review evidence (snapshot.reviews): recall is a percentage, or null before any review. */
    recallStrength(title: string, mastery: string, reviews: number): string;
    lowRecall(title: string, mastery: string, reviews: number, again: number): string;
    forgetting(title: string, recall: string | null, forgotten: number, lapses: number, due: number): string;
    /** `day`: the learner model's day (snapshot.reviews.today), labelled as Review and the top line label it; without it, the cards due now. */
    reviews(
      cards: number,
      due: number,
      recall: string | null,
      day?: { now: number; later: number; heldBack: number },
    ): string;
  };
  weakPoints: {
    mastery(mastery: string, answers: number, reviews: number): string;
    recentWrong(wrong: number, recent: number): string;
    wrongOn(date: string, question: string): string;
    review(material: string | null, title: string, statement: string): string;
    reviewed(reviews: number, again: number, recall: string | null): string;
    forgotten(cards: number): string;
    lapses(lapses: number): string;
    dueCards(cards: number): string;
  };
  nextActions: {
    away(days: number): string;
    restTitle: string;
    restReason(minutes: number): string;
    review(title: string): string;
    practise(title: string): string;
    weakReason(mastery: string, wrong: number, recent: number, severity: Level): string;
    learn(title: string): string;
    notPractised: string;
    practiseAgain(title: string): string;
    spacedReason(mastery: string, days: number): string;
    onTrack: string;
    start(material: string): string;
    noPoints: string;
    nothingTitle: string;
    nothingReason: string;
    reviewDue(title: string, cards: number): string;
    dueReason(cards: number, forgotten: number, recall: string | null): string;
  };
  quiz: {
    distractors: [string, string];
    trueFalse: [string, string];
    from(title: string, statement: string): string;
    whichStatement(title: string): string;
    whichPoint(statement: string): string;
    fillBlank(material: string, text: string): string;
    trueOrFalse(statement: string): string;
    /** A concept's name with a statement about it. */
    pair(concept: string, statement: string): string;
    describesOther(other: string, explanation: string): string;
    /** A false statement when the material gives nothing to make false: the course lacks the point. */
    notInCourse(concept: string): string;
    /** Its true counterpart, for a point with nothing else to state. */
    isInCourse(concept: string): string;
    inCourse(concept: string, explanation: string): string;
    /** Why a statement with a sibling's term in place of the point's is false. */
    swapped(concept: string, sibling: string, statement: string): string;
    /** Why a negated or confused statement is false. */
    negated(statement: string): string;
    trueOrFalseSource(material: string, sentence: string): string;
    materialSays(sentence: string): string;
    explain(title: string): string;
    numbered(stem: string, n: number): string;
    /** A calculation: the point's name, the given quantities, the quantity asked for. */
    calculate(concept: string, given: string[], target: string): string;
    /** A quantity with its value: its name as the material gives it, its symbol, value and unit. */
    quantity(name: string | null, symbol: string, value: string): string;
    /** The working of a calculation: the formula, then the numbers put in. */
    working(formula: string, steps: string): string;
    /** A why-question: the material's sentence with its cause hidden. */
    why(masked: string): string;
    whyShort(masked: string): string;
    /** Why a misconception the material refutes is false. */
    refuted(refutation: string): string;
  };
  flashcards: {
    whatIs(title: string): string;
    whichIdea(statement: string): string;
    fillBlank(text: string): string;
    clozeBack(word: string, sentence: string): string;
    numbered(front: string, n: number): string;
    /** The passage a card's answer comes from, apart from the answer. */
    source(text: string): string;
    general: string;
    needsReview: string;
  };
};

const en: Templates = {
  sentenceGap: " ",
  level: { low: "low", medium: "medium", high: "high" },
  learningState: {
    learner: "The learner",
    strength: (t, m, n, r) =>
      `${t}: ${m} mastery over ${cardsEn(n, "answer")}${r ? ` and ${cardsEn(r, "review")}` : ""}`,
    risk: (t, m, w, r) => `${t}: ${m} mastery, ${w} of the last ${r} answers wrong`,
    notPractised: (t) => `${t}: not practised yet`,
    littleStudy: (m) => `Little study in the last 14 days (${m} minutes)`,
    away: (d) => `No study for ${d} days`,
    practised: (name, p, total, answers, m) =>
      `${name} has practised ${p} of ${total} knowledge points (${answers} answers); overall mastery is ${m}.`,
    engagement: (level, m) => `Engagement is ${level} (${m} minutes in the last 14 days).`,
    strongest: (t, m) => `Strongest: ${t} (${m}).`,
    weakest: (t, m) => `Needs the most work: ${t} (${m}).`,
    recallStrength: (t, m, n) => `${t}: ${m} mastery over ${cardsEn(n, "review")}`,
    lowRecall: (t, m, n, a) => `${t}: ${m} mastery, ${a} of ${cardsEn(n, "review")} rated Again`,
    forgetting: (t, r, f, l, d) =>
      `${t}: slipping in reviews (${[
        f ? `${cardsEn(f)} forgotten at the latest review` : "",
        r ? `predicted recall ${r}` : "",
        l ? `${cardsEn(l, "lapse")}` : "",
        d ? `${cardsEn(d)} due` : "",
      ]
        .filter(Boolean)
        .join(", ")})`,
    reviews: (c, d, r, day) =>
      `Reviews: ${cardsEn(c)} in the schedule, ${
        day
          ? `${cardsEn(day.now)} now · ${cardsEn(day.later)} later today${day.heldBack ? ` (${day.heldBack} more due now, over today's limits)` : ""}`
          : `${d} due now`
      }${r ? `, predicted recall ${r}` : ""}.`,
  },
  weakPoints: {
    mastery: (m, n, r) =>
      `Mastery ${m} over ${cardsEn(n, "answer")}${r ? ` and ${cardsEn(r, "review")}` : ""} (recent answers weigh more)`,
    recentWrong: (w, r) => `${w} of the last ${r} answers wrong`,
    wrongOn: (d, q) => `Wrong on ${d}: "${q}"`,
    review: (material, t, s) =>
      `Re-read ${material ? `"${material}" on ` : ""}"${t}": ${s} Then answer a few practice questions on it.`,
    reviewed: (n, a, r) => `${cardsEn(n, "review")}, ${a} rated Again${r ? `; predicted recall ${r}` : ""}`,
    forgotten: (c) => `${cardsEn(c)} forgotten at the latest review`,
    lapses: (l) => `Forgotten ${l} ${l === 1 ? "time" : "times"} after being learnt (lapses)`,
    dueCards: (c) => `${cardsEn(c)} of it ${c === 1 ? "is" : "are"} due for review.`,
  },
  nextActions: {
    away: (d) => ` You last studied ${d} days ago, so start here.`,
    restTitle: "Take a break before the next session",
    restReason: (m) => `You studied ${m} minutes in the last 24 hours; a rest helps it stick.`,
    review: (t) => `Review ${t}`,
    practise: (t) => `Practise ${t}`,
    weakReason: (m, w, r, s) => `Mastery ${m} with ${w} of the last ${r} answers wrong (${s} severity).`,
    learn: (t) => `Learn ${t}`,
    notPractised: "Not practised yet.",
    practiseAgain: (t) => `Practise ${t} again`,
    spacedReason: (m, d) => `Mastery ${m}, last practised ${d} days ago: spaced practice keeps it.`,
    onTrack: "Everything is on track; a short practice keeps it that way.",
    start: (m) => `Start "${m}"`,
    noPoints: "No knowledge points are recorded yet for this material.",
    nothingTitle: "Nothing to study yet",
    nothingReason: "Add a material to get a study plan.",
    reviewDue: (t, c) => `Review the ${cardsEn(c, "due card")} of ${t}`,
    dueReason: (c, f, r) =>
      `${cardsEn(c)} due for review${f ? `, ${f} forgotten at the latest review` : ""}${r ? `; predicted recall ${r}` : ""}.`,
  },
  quiz: {
    distractors: ["None of the other options", "It is not covered in this material"],
    trueFalse: ["True", "False"],
    from: (t, s) => `From "${t}": ${s}`,
    whichStatement: (t) => `Which statement describes "${t}"? (_____ stands for it)`,
    whichPoint: (s) => `Which knowledge point does this describe: "${s}"?`,
    fillBlank: (m, text) => `Fill in the blank (${m}): "${text}"`,
    trueOrFalse: (s) => `True or false: ${s}`,
    pair: (c, s) => `"${c}" — ${s}`,
    describesOther: (o, e) => `That describes "${o}". ${e}`,
    notInCourse: (c) => `"${c}" is not one of this course's knowledge points.`,
    isInCourse: (c) => `"${c}" is one of this course's knowledge points.`,
    inCourse: (c, e) => `False: "${c}" is one of this course's knowledge points. ${e}`,
    swapped: (c, o, s) => `False: that is "${c}", not "${o}". ${s}`,
    negated: (s) => `False. The material says: ${s}`,
    trueOrFalseSource: (m, s) => `True or false (${m}): ${s}`,
    materialSays: (s) => `The material says so: ${s}`,
    explain: (t) => `Explain "${t}" in your own words.`,
    numbered: (stem, n) => `${stem} (question ${n})`,
    calculate: (c, given, t) => `Calculate (${c}): ${given.join(", ")}. What is ${t}?`,
    quantity: (name, symbol, value) => `${name ? `${name} ` : ""}${symbol} = ${value}`,
    working: (f, steps) => `${f}, so ${steps}.`,
    why: (m) => `Why? Choose the reason the material gives: "${m}"`,
    whyShort: (m) => `Why? Give the reason the material states: "${m}"`,
    refuted: (r) => `False. ${r}`,
  },
  flashcards: {
    whatIs: (t) => `What is "${t}"?`,
    whichIdea: (s) => `Which concept does this describe: "${s}"?`,
    fillBlank: (text) => `Which term fills the blank: "${text}"?`,
    clozeBack: (w, s) => `${w} — ${s}`,
    numbered: (front, n) => `${front} (card ${n})`,
    source: (t) => `Source: ${t}`,
    general: "general",
    needsReview: "needs-review",
  },
};

const zhCN: Templates = {
  sentenceGap: "",
  level: { low: "低", medium: "中", high: "高" },
  learningState: {
    learner: "该学习者",
    strength: (t, m, n, r) => `${t}：掌握度 ${m}，共作答 ${n} 次${r ? `、复习 ${r} 次` : ""}`,
    risk: (t, m, w, r) => `${t}：掌握度 ${m}，最近 ${r} 次作答错了 ${w} 次`,
    notPractised: (t) => `${t}：尚未练习`,
    littleStudy: (m) => `近 14 天学习很少（${m} 分钟）`,
    away: (d) => `已有 ${d} 天没有学习`,
    practised: (name, p, total, answers, m) =>
      `${name}已练习 ${total} 个知识点中的 ${p} 个（共作答 ${answers} 次），总体掌握度为 ${m}。`,
    engagement: (level, m) => `学习投入度${zhLevel[level]}（近 14 天 ${m} 分钟）。`,
    strongest: (t, m) => `掌握最好：${t}（${m}）。`,
    weakest: (t, m) => `最需要加强：${t}（${m}）。`,
    recallStrength: (t, m, n) => `${t}：掌握度 ${m}，复习 ${n} 次`,
    lowRecall: (t, m, n, a) => `${t}：掌握度 ${m}，复习 ${n} 次中 ${a} 次评为「重来」`,
    forgetting: (t, r, f, l, d) =>
      `${t}：复习中正在遗忘（${[
        f ? `${f} 张卡片在最近一次复习时忘记了` : "",
        r ? `预计记忆保持率 ${r}` : "",
        l ? `遗忘 ${l} 次` : "",
        d ? `${d} 张卡片待复习` : "",
      ]
        .filter(Boolean)
        .join("，")}）`,
    reviews: (c, d, r, day) =>
      `复习计划中有 ${c} 张卡片，${
        day
          ? `现在 ${day.now} 张 · 今天稍后 ${day.later} 张${day.heldBack ? `（另有 ${day.heldBack} 张现在到期，超出今天的上限）` : ""}`
          : `现在到期 ${d} 张`
      }${r ? `，预计记忆保持率 ${r}` : ""}。`,
  },
  weakPoints: {
    mastery: (m, n, r) => `掌握度 ${m}，共作答 ${n} 次${r ? `、复习 ${r} 次` : ""}（越近的作答权重越高）`,
    recentWrong: (w, r) => `最近 ${r} 次作答错了 ${w} 次`,
    wrongOn: (d, q) => `${d} 答错：“${q}”`,
    review: (material, t, s) => `重读${material ? `《${material}》中的` : ""}“${t}”：${s} 然后做几道相关的练习题。`,
    reviewed: (n, a, r) => `复习 ${n} 次，其中 ${a} 次评为「重来」${r ? `；预计记忆保持率 ${r}` : ""}`,
    forgotten: (c) => `${c} 张卡片在最近一次复习时忘记了`,
    lapses: (l) => `学会后又遗忘 ${l} 次`,
    dueCards: (c) => `它有 ${c} 张卡片到期待复习。`,
  },
  nextActions: {
    away: (d) => `你上次学习是在 ${d} 天前，先从这里开始。`,
    restTitle: "下次学习前先休息一下",
    restReason: (m) => `过去 24 小时你学习了 ${m} 分钟，休息一下有助于记牢。`,
    review: (t) => `复习“${t}”`,
    practise: (t) => `练习“${t}”`,
    weakReason: (m, w, r, s) => `掌握度 ${m}，最近 ${r} 次作答错了 ${w} 次（严重程度：${zhLevel[s]}）。`,
    learn: (t) => `学习“${t}”`,
    notPractised: "尚未练习。",
    practiseAgain: (t) => `再次练习“${t}”`,
    spacedReason: (m, d) => `掌握度 ${m}，上次练习在 ${d} 天前：间隔练习有助于保持。`,
    onTrack: "一切进展顺利，做一次简短的练习就能保持下去。",
    start: (m) => `开始学习《${m}》`,
    noPoints: "这份材料还没有记录知识点。",
    nothingTitle: "暂时没有可学习的内容",
    nothingReason: "添加一份学习材料即可获得学习计划。",
    reviewDue: (t, c) => `复习“${t}”的 ${c} 张到期卡片`,
    dueReason: (c, f, r) =>
      `${c} 张卡片到期待复习${f ? `，其中 ${f} 张在最近一次复习时忘记了` : ""}${r ? `；预计记忆保持率 ${r}` : ""}。`,
  },
  quiz: {
    distractors: ["以上选项都不对", "这份材料没有涉及"],
    trueFalse: ["正确", "错误"],
    from: (t, s) => `出自“${t}”：${s}`,
    whichStatement: (t) => `下列哪一项描述了“${t}”？（_____ 代表它）`,
    whichPoint: (s) => `这段话描述的是哪个知识点：“${s}”？`,
    fillBlank: (m, text) => `填空（《${m}》）：“${text}”`,
    trueOrFalse: (s) => `判断正误：${s}`,
    pair: (c, s) => `“${c}”——${s}`,
    describesOther: (o, e) => `这句话描述的是“${o}”。${e}`,
    notInCourse: (c) => `“${c}”不是本课程的知识点。`,
    isInCourse: (c) => `“${c}”是本课程的知识点。`,
    inCourse: (c, e) => `错误：“${c}”是本课程的知识点。${e}`,
    swapped: (c, o, s) => `错误：这里说的是“${c}”，而不是“${o}”。${s}`,
    negated: (s) => `错误。材料原文是：${s}`,
    trueOrFalseSource: (m, s) => `判断正误（《${m}》）：${s}`,
    materialSays: (s) => `材料原文如此：${s}`,
    explain: (t) => `请用自己的话解释“${t}”。`,
    numbered: (stem, n) => `${stem}（第 ${n} 题）`,
    calculate: (c, given, t) => `计算（${c}）：已知${given.join("，")}，求${t}。`,
    quantity: (name, symbol, value) => `${name ?? ""}${symbol} = ${value}`,
    working: (f, steps) => `由${f}得：${steps}。`,
    why: (m) => `为什么？选出材料给出的原因：“${m}”`,
    whyShort: (m) => `为什么？写出材料给出的原因：“${m}”`,
    refuted: (r) => `错误。${r}`,
  },
  flashcards: {
    whatIs: (t) => `什么是“${t}”？`,
    whichIdea: (s) => `这段话描述的是哪个概念：“${s}”？`,
    fillBlank: (text) => `哪个词填入空白处：“${text}”？`,
    clozeBack: (w, s) => `${w}——${s}`,
    numbered: (front, n) => `${front}（第 ${n} 张）`,
    source: (t) => `原文：${t}`,
    general: "综合",
    needsReview: "待复习",
  },
};
const zhLevel: Record<Level, string> = zhCN.level;

/** "1 card", "3 cards" (or another noun). */
function cardsEn(n: number, noun = "card") {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export const TEMPLATES: Record<Locale, Templates> = { en, "zh-CN": zhCN };

/** The templates of a language (English for anything unknown). */
export function templatesFor(locale: Locale | undefined): Templates {
  return locale && Object.hasOwn(TEMPLATES, locale) ? TEMPLATES[locale] : en;
}
