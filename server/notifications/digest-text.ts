import type { Locale } from "../i18n/locales";
import type { FirstStep } from "../review/today";

export type DigestParts = {
  name: string;
  dueCards: number;
  firstStep: FirstStep | null;
  pageUrl: string;
  unsubscribeUrl: string;
};

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const WORDS = {
  en: {
    subject: (n: number) => (n === 1 ? "1 card to review today" : `${n} cards to review today`),
    hello: (name: string) => `Hello ${name},`,
    due: (n: number) =>
      n === 0
        ? "No card is due today."
        : n === 1
          ? "1 card is due for review today."
          : `${n} cards are due for review today.`,
    step: (s: FirstStep) => `Your plan's first step: ${s.title} (${s.estimatedMinutes} min).`,
    open: "Open your learning page",
    why: "You get this email because you asked for a daily review digest.",
    unsubscribe: "Unsubscribe",
  },
  "zh-CN": {
    subject: (n: number) => `今天要复习 ${n} 张卡片`,
    hello: (name: string) => `${name}，你好：`,
    due: (n: number) => (n === 0 ? "今天没有到期的卡片。" : `今天要复习 ${n} 张卡片。`),
    step: (s: FirstStep) => `学习计划的第一步：${s.title}（${s.estimatedMinutes} 分钟）。`,
    open: "打开学习页面",
    why: "你订阅了每日复习提醒，所以收到这封邮件。",
    unsubscribe: "退订",
  },
} as const;

/** The digest's subject, plain text and HTML in the learner's language. */
export function digestMessage(locale: Locale, p: DigestParts) {
  const w = WORDS[locale];
  const lines = [w.hello(p.name), "", w.due(p.dueCards), ...(p.firstStep ? [w.step(p.firstStep)] : [])];
  const text = [...lines, "", `${w.open}: ${p.pageUrl}`, "", w.why, `${w.unsubscribe}: ${p.unsubscribeUrl}`].join("\n");
  const html = [
    `<!doctype html><html lang="${locale}"><body>`,
    ...lines.filter(Boolean).map((l) => `<p>${escape(l)}</p>`),
    `<p><a href="${escape(p.pageUrl)}">${escape(w.open)}</a></p>`,
    `<p style="color:#555">${escape(w.why)} <a href="${escape(p.unsubscribeUrl)}">${escape(w.unsubscribe)}</a></p>`,
    "</body></html>",
  ].join("\n");
  return { subject: w.subject(p.dueCards), text, html };
}
