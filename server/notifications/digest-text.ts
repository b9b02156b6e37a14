import type { Locale } from "../i18n/locales";
import type { FirstStep } from "../review/today";

export type DigestParts = {
  name: string;
  /** The learner model's counts, as the page's top line states them: cards Review offers now, and later in her day. */
  dueNow: number;
  laterToday: number;
  firstStep: FirstStep | null;
  pageUrl: string;
  unsubscribeUrl: string;
};

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const cardsEn = (n: number) => (n === 1 ? "1 card" : `${n} cards`);

const WORDS = {
  en: {
    subject: (now: number, later: number) =>
      now + later === 0 ? "Nothing to review today" : `To review: ${cardsEn(now)} now · ${cardsEn(later)} later today`,
    hello: (name: string) => `Hello ${name},`,
    due: (now: number, later: number) =>
      now + later === 0
        ? "Nothing to review today."
        : `To review today: ${cardsEn(now)} now · ${cardsEn(later)} later today.`,
    step: (s: FirstStep) =>
      s.degraded
        ? `Your plan's first step (unverified: this plan broke a quality check, its figures are not verified): ${s.title} (${s.estimatedMinutes} min).`
        : `Your plan's first step: ${s.title} (${s.estimatedMinutes} min).`,
    open: "Open your learning page",
    why: "You get this email because you asked for a daily review digest.",
    unsubscribe: "Unsubscribe",
  },
  "zh-CN": {
    subject: (now: number, later: number) =>
      now + later === 0 ? "今天没有要复习的卡片" : `要复习：现在 ${now} 张 · 今天稍后 ${later} 张`,
    hello: (name: string) => `${name}，你好：`,
    due: (now: number, later: number) =>
      now + later === 0 ? "今天没有要复习的卡片。" : `今天要复习：现在 ${now} 张 · 今天稍后 ${later} 张。`,
    step: (s: FirstStep) =>
      s.degraded
        ? `学习计划的第一步（未核实：这份计划未通过质量检查，其中的数字未经核实）：${s.title}（${s.estimatedMinutes} 分钟）。`
        : `学习计划的第一步：${s.title}（${s.estimatedMinutes} 分钟）。`,
    open: "打开学习页面",
    why: "你订阅了每日复习提醒，所以收到这封邮件。",
    unsubscribe: "退订",
  },
} as const;

/** The digest's subject, plain text and HTML in the learner's language. */
export function digestMessage(locale: Locale, p: DigestParts) {
  const w = WORDS[locale];
  const lines = [w.hello(p.name), "", w.due(p.dueNow, p.laterToday), ...(p.firstStep ? [w.step(p.firstStep)] : [])];
  const text = [...lines, "", `${w.open}: ${p.pageUrl}`, "", w.why, `${w.unsubscribe}: ${p.unsubscribeUrl}`].join("\n");
  const html = [
    `<!doctype html><html lang="${locale}"><body>`,
    ...lines.filter(Boolean).map((l) => `<p>${escape(l)}</p>`),
    `<p><a href="${escape(p.pageUrl)}">${escape(w.open)}</a></p>`,
    `<p style="color:#555">${escape(w.why)} <a href="${escape(p.unsubscribeUrl)}">${escape(w.unsubscribe)}</a></p>`,
    "</body></html>",
  ].join("\n");
  return { subject: w.subject(p.dueNow, p.laterToday), text, html };
}
