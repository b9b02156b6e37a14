import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { recordProgress, seenProgress } from "./learner-helpers";

/**
 * The learner's main path in 简体中文 and in English: sign in, pick a target, run an
 * analysis and watch it, read the result, play the quiz, flip the flashcards, with a screenshot
 * and axe at every step. The Chinese demo learner 李明 (li@example.com, saved language zh-CN)
 * walks it in both languages, so the Chinese materials are seen in both interfaces too.
 */
test.describe.configure({ mode: "serial" });

const LI = { email: "li@example.com", password: "learner-demo-password" };
const MATERIAL = "光合作用：光反应与暗反应";

type Words = {
  signIn: string;
  email: string;
  password: string;
  title: string;
  live: RegExp;
  targetLabel: string;
  wholeMaterial: string;
  start: RegExp;
  stages: string[];
  ready: string;
  overall: string;
  masteryHeading: string;
  submit: string;
  score: RegExp;
  iKnow: string;
  known: RegExp;
  question: string;
  /** The AI's own words (the local analyzer's templates), in the job's language. */
  summary: RegExp;
  quizStem: RegExp;
  cardFront: RegExp;
};

const ZH: Words = {
  signIn: "登录",
  email: "邮箱",
  password: "密码",
  title: "你的 AI 学习教练",
  live: /实时更新已开启/,
  targetLabel: "要让 AI 分析什么？",
  wholeMaterial: `${MATERIAL}（整份资料）`,
  start: /^开始/,
  stages: ["排队中", "启动中", "重试中", "正在读取你的数据", "正在思考", "正在检查答案", "即将完成", "处理中"],
  ready: "已完成",
  overall: "总体掌握程度",
  masteryHeading: "你的掌握程度变化",
  submit: "提交答案",
  score: /你的得分：\d+ \/ \d+/,
  iKnow: "我已掌握",
  known: /已掌握 1 \/ \d+/,
  question: "问题",
  summary: /李明已练习 \d+ 个知识点中的 \d+ 个（共作答 \d+ 次），总体掌握度为 \d+%。/,
  quizStem: /下列哪一项描述了|这段话描述的是哪个知识点|判断正误|填空|请用自己的话解释/,
  cardFront: /什么是“|这是哪个概念|填空：/,
};

const EN: Words = {
  signIn: "Sign in",
  email: "Email",
  password: "Password",
  title: "Your AI study coach",
  live: /Live updates on/,
  targetLabel: "What should the AI look at?",
  wholeMaterial: `${MATERIAL} (whole material)`,
  start: /^Start/,
  stages: [
    "In the queue",
    "Starting",
    "Retrying",
    "Reading your data",
    "Thinking",
    "Checking the answer",
    "Finishing",
    "Working",
  ],
  ready: "Ready",
  overall: "Overall mastery",
  masteryHeading: "Your mastery over time",
  submit: "Submit answers",
  score: /You scored \d+ \/ \d+/,
  iKnow: "I know this",
  known: /1 of \d+ known/,
  question: "Question",
  summary: /李明 has practised \d+ of \d+ knowledge points \(\d+ answers\); overall mastery is \d+%\./,
  quizStem: /Which statement describes|Which knowledge point|True or false|Fill in the blank|Explain/,
  cardFront: /What is "|Which idea is this|Fill in the blank/,
};

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screenshots/i18n-${name}.png`, fullPage: true });
  await expectAccessible(page, `i18n ${name}`);
}

/** Starts one analysis type from its card and waits for its result in the detail panel. */
async function runOne(page: Page, w: Words, type: string) {
  await page.getByTestId(`card-${type}`).getByRole("button", { name: w.start }).click();
  const body = page.getByTestId("detail-body");
  await expect(body).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  // The status badge beside the title, in the page's language.
  await expect(page.getByTestId("detail-title").locator("xpath=../..")).toContainText(w.ready);
}

async function mainPath(page: Page, w: Words, locale: string) {
  // Three analyses and six axe runs: on a loaded machine this outlasts the default 90 s.
  test.setTimeout(240_000);
  await expect(page.locator("html")).toHaveAttribute("lang", locale);
  await expect(page.getByRole("heading", { name: w.title })).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveText(w.live);
  await shot(page, `${locale}-learner-page`);

  await page.getByLabel(w.targetLabel).selectOption({ label: w.wholeMaterial });
  await recordProgress(page);
  await runOne(page, w, "learning_state_analysis");
  const { seen } = await seenProgress(page);
  const stages = [...new Set(seen.map((s) => s.split("|")[0]!))];
  expect(stages.length, seen.join(", ")).toBeGreaterThanOrEqual(1);
  expect(
    stages.filter((s) => !w.stages.includes(s)),
    `stages shown: ${stages.join(", ")}`,
  ).toEqual([]);
  await expect(page.getByText(w.overall, { exact: true })).toBeVisible();
  // The result itself is written in the learner's language (the job's locale), not only the page around it.
  await expect(page.getByTestId("detail-body")).toContainText(w.summary);
  await expect(page.getByTestId("mastery-row").filter({ hasText: "光反应" }).first()).toBeVisible();
  await expect(page.getByRole("heading", { name: w.masteryHeading })).toBeVisible();
  await expect(page.getByTestId("mastery-line").first()).toBeAttached();
  await shot(page, `${locale}-learning-state`);

  await runOne(page, w, "quiz_generation");
  const questions = page.getByTestId("quiz-question");
  await expect(questions.first()).toBeVisible();
  await expect(questions.first().locator("legend")).toContainText(w.quizStem);
  for (let i = 0; i < (await questions.count()); i++) {
    const q = questions.nth(i);
    if (await q.getByRole("radio").count()) await q.getByRole("radio").first().check();
    else await q.getByRole("textbox").fill("叶绿素");
  }
  await shot(page, `${locale}-quiz`);
  await page.getByRole("button", { name: w.submit }).click();
  await expect(page.getByTestId("quiz-score")).toContainText(w.score);
  await shot(page, `${locale}-quiz-scored`);

  await runOne(page, w, "flashcard_generation");
  const card = page.getByTestId("flashcard").first();
  await expect(card).toContainText(w.question);
  await expect(card).toContainText(w.cardFront);
  await card.getByRole("button").first().click();
  await card.getByLabel(w.iKnow).check();
  await expect(page.getByTestId("known-count")).toHaveText(w.known);
  await shot(page, `${locale}-flashcards`);
}

test.describe("简体中文", () => {
  test.use({ locale: "zh-CN" });

  test("[LEARNER] the sign-in page follows Accept-Language; 李明 walks the main path in Chinese", async ({ page }) => {
    await page.goto("/sign-in");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByRole("heading", { name: ZH.signIn })).toBeVisible();
    await shot(page, "zh-CN-sign-in");
    await page.getByLabel(ZH.email).fill(LI.email);
    await page.getByLabel(ZH.password).fill(LI.password);
    await page.getByRole("button", { name: ZH.signIn, exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await mainPath(page, ZH, "zh-CN");
  });
});

test.describe("English", () => {
  test.use({ locale: "en-US" });

  test("[LEARNER] the saved language wins over the browser's; switched to English, the same path in English", async ({
    page,
  }) => {
    await page.goto("/sign-in");
    await expect(page.getByRole("heading", { name: EN.signIn })).toBeVisible();
    await shot(page, "en-sign-in");
    await page.getByLabel(EN.email).fill(LI.email);
    await page.getByLabel(EN.password).fill(LI.password);
    await page.getByRole("button", { name: EN.signIn, exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/");
    // Li saved 简体中文: the page speaks it although this browser asks for English.
    await expect(page.getByRole("heading", { name: ZH.title })).toBeVisible();
    await page.getByLabel("语言").selectOption("en");
    await expect(page.getByRole("heading", { name: EN.title })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { name: EN.title })).toBeVisible();
    try {
      await mainPath(page, EN, "en");
    } finally {
      // Back to the demo learner's own language for the next run against this database.
      await page.getByLabel("Language").selectOption("zh-CN");
      await expect(page.getByRole("heading", { name: ZH.title })).toBeVisible();
    }
  });

  test("[LEARNER] a visitor picks 简体中文 on the sign-in page; the choice is kept in a cookie", async ({ page }) => {
    await page.goto("/sign-in?error=wrong");
    await expect(page.locator("main").getByRole("alert")).toHaveText("Wrong email or password.");
    await page.getByLabel("Language").selectOption("zh-CN");
    await expect(page.getByRole("heading", { name: ZH.signIn })).toBeVisible();
    await expect(page.locator("main").getByRole("alert")).toHaveText("邮箱或密码错误。");
    await page.goto("/sign-in");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await shot(page, "zh-CN-sign-in-by-cookie");
  });
});

test.describe("on a phone (390 px), in Chinese", () => {
  test.use({ locale: "zh-CN", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("[LEARNER] long Chinese titles wrap: no page wider than the screen, results, quiz and chart table fit", async ({
    page,
  }) => {
    const origin = new URL(test.info().project.use.baseURL!).origin;
    const res = await page.request.post("/api/auth/sign-in/email", { data: LI, headers: { origin } });
    expect(res.status()).toBe(200);
    await page.goto("/");
    await expect(page.getByRole("heading", { name: ZH.title })).toBeVisible();
    const fits = async (state: string) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${state}: the page is ${width}px wide on a 390px screen`).toBeLessThanOrEqual(390);
    };
    await fits("learner page");
    await shot(page, "phone-zh-CN-learner-page");

    await page.getByLabel(ZH.targetLabel).selectOption({ label: ZH.wholeMaterial });
    await runOne(page, ZH, "learning_state_analysis");
    // The longest seeded title (影响光合作用速率的环境因素…) is on a bar row: it wraps inside the screen.
    const longRow = page.getByTestId("mastery-row").filter({ hasText: "影响光合作用速率" });
    await expect(longRow).toBeVisible();
    const box = await longRow.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await fits("learning state result");
    await shot(page, "phone-zh-CN-learning-state");

    await page.getByText(ZH.masteryHeading).scrollIntoViewIfNeeded();
    await page.getByText("以表格显示").click();
    await expect(page.getByRole("table")).toBeVisible();
    await fits("mastery table");
    await shot(page, "phone-zh-CN-mastery-table");

    await runOne(page, ZH, "quiz_generation");
    await expect(page.getByTestId("quiz-question").first()).toBeVisible();
    await fits("quiz");
    await shot(page, "phone-zh-CN-quiz");
  });
});

test.describe("the admin console", () => {
  test.use({ locale: "zh-CN" });

  test("[ADMIN] stays English for a Chinese-speaking admin, finds 李明 by name, shows his language and his jobs'", async ({
    page,
  }) => {
    const origin = new URL(test.info().project.use.baseURL!).origin;
    await page.context().addCookies([{ name: "locale", value: "zh-CN", url: origin }]);
    const res = await page.request.post("/api/auth/sign-in/email", {
      data: { email: "admin@example.com", password: "admin-demo-password" },
      headers: { origin },
    });
    expect(res.status()).toBe(200);
    await page.goto(`/admin/jobs?q=${encodeURIComponent("李明")}`);
    const row = page.locator("#main tbody tr").first();
    await expect(row).toContainText("李明");
    await expect(row.getByTestId("user-locale")).toHaveText("zh-CN");
    await expect(page.locator("div[lang=en] #main")).toBeAttached();
    await page.screenshot({ path: "test-results/screenshots/i18n-admin-search-zh.png", fullPage: true });
    await expectAccessible(page, "admin search by Chinese name");
    // Li's jobs run in Chinese (the English walk's jobs in English): the row and the page say which.
    const zhRow = page
      .locator("#main tbody tr")
      .filter({ has: page.getByTestId("job-locale") })
      .first();
    await expect(zhRow.getByTestId("job-locale")).toHaveText("zh-CN");
    await zhRow.getByRole("link").first().click();
    await expect(page.getByTestId("learner-language")).toHaveText("简体中文 (zh-CN)");
    await expect(page.getByTestId("job-language")).toHaveText("简体中文 (zh-CN)");
    await page.screenshot({ path: "test-results/screenshots/i18n-admin-job-detail.png", fullPage: true });
    await expectAccessible(page, "admin job detail with the learner's language");
  });
});
