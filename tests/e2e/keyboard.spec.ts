import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { ADMIN, failedJob, signedInRequest, trpc } from "./admin-helpers";
import { focusedIsBody, isFocused, tabTo } from "./keys";
import { rowsOf, signIn } from "./learner-helpers";

/**
 * Keyboard only: after signing in (through the API), every step is Tab, Shift+Tab, Enter, Space
 * or typing — no clicks. After each action focus must be on the control that was used or on the
 * status message it produced, never back on <body>.
 */
const BEN = { email: "ben@example.com", password: "learner-demo-password" };

/** The skip link is the first tab stop and moves focus to the page's main content. */
async function skipToMain(page: Page) {
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  expect(await isFocused(skip)).toBe(true);
  await expect(skip).toBeVisible();
  await page.keyboard.press("Enter");
  await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");
}

test("[LEARNER] keyboard only: start an analysis, open its result, flip a card, play the quiz, turn consent off and on", async ({
  page,
}) => {
  await signIn(page, BEN);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Your AI study coach" })).toBeVisible();
  await skipToMain(page);

  // Start: the button keeps focus while the request runs and after; the result is announced.
  const startCards = page.getByRole("button", { name: "Start Flashcards" });
  await tabTo(page, startCards);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: /Started “Flashcards”|already running/ })).toBeVisible();
  expect(await isFocused(startCards)).toBe(true);

  // Open the result from the list.
  const row = rowsOf(page, "flashcard_generation").first();
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  const open = row.getByRole("button").first();
  await page.getByRole("heading", { name: "Your AI study coach" }).focus();
  await tabTo(page, open, { max: 200 });
  await page.keyboard.press("Enter");
  const card = page.getByTestId("flashcard").first().getByRole("button").first();
  await expect(card).toBeVisible();
  expect(await focusedIsBody(page)).toBe(false);

  // Flip a card with Space: pressed, still focused.
  await tabTo(page, card);
  await page.keyboard.press("Space");
  await expect(card).toHaveAttribute("aria-pressed", "true");
  expect(await isFocused(card)).toBe(true);
  await expectAccessible(page, "keyboard: flashcard flipped, focus visible");

  // The quiz: start it, open it, answer every question, submit; focus lands on the score.
  const startQuiz = page.getByRole("button", { name: "Start Practice quiz" });
  await tabTo(page, startQuiz, { back: true, max: 200 });
  await page.keyboard.press("Enter");
  const quizRow = rowsOf(page, "quiz_generation").first();
  await expect(quizRow).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await tabTo(page, quizRow.getByRole("button").first(), { max: 200 });
  await page.keyboard.press("Enter");
  const questions = page.getByTestId("quiz-question");
  await expect(questions.first()).toBeVisible();
  for (let i = 0; i < (await questions.count()); i++) {
    const q = questions.nth(i);
    const field = (await q.getByRole("radio").count()) ? q.getByRole("radio").first() : q.getByRole("textbox");
    await tabTo(page, field);
    if ((await field.getAttribute("type")) === "radio") await page.keyboard.press("Space");
    else await page.keyboard.type("my answer");
  }
  await tabTo(page, page.getByRole("button", { name: "Submit answers" }));
  await page.keyboard.press("Enter");
  const score = page.getByTestId("quiz-score");
  await expect(score).toContainText(/You scored \d+ \/ \d+/);
  await expect.poll(() => isFocused(score)).toBe(true);

  // Consent: the switch keeps focus through the save, both ways.
  const consent = page.getByRole("switch", { name: "Let AI analyse my learning" });
  await tabTo(page, consent, { max: 200 });
  await page.keyboard.press("Space");
  await expect(consent).toHaveAttribute("aria-checked", "false");
  await expect(page.getByRole("status").filter({ hasText: "AI analysis is off" })).toBeVisible();
  expect(await isFocused(consent)).toBe(true);
  await page.keyboard.press("Space");
  await expect(consent).toHaveAttribute("aria-checked", "true");
  expect(await isFocused(consent)).toBe(true);
});

test("[ADMIN] keyboard only: filter the explorer, open a failed job, re-run it", async ({ page }) => {
  const learner = await signedInRequest({ email: "ada@example.com", password: "learner-demo-password" });
  const admin = await signedInRequest(ADMIN);
  const key = (
    await trpc<{ key: string }>(admin, "admin.runtimeKeys.create", { name: `keyboard ${Date.now()}` }, "mutation")
  ).data.key;
  const jobId = await failedJob(learner, key, { tag: `kbd-${Date.now()}` });
  await page.context().addCookies((await admin.storageState()).cookies);
  await learner.dispose();
  await admin.dispose();

  await page.goto("/admin/jobs");
  await expect(page.getByRole("heading", { name: "Jobs" })).toBeVisible();
  await skipToMain(page);

  // Filters: the extra ones are folded away; open them, pick "failed", search by id, Enter.
  const more = page.getByText("More filters");
  await tabTo(page, more);
  await page.keyboard.press("Enter");
  const failedChip = page.getByRole("group", { name: "State" }).getByRole("checkbox", { name: "failed" });
  await tabTo(page, failedChip);
  await page.keyboard.press("Space");
  await expect(failedChip).toBeChecked();
  const search = page.getByLabel("Search");
  await tabTo(page, search, { back: true });
  await page.keyboard.type(jobId);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`q=${jobId}`));
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.locator("#main").getByTestId("match-count")).toHaveText("1 matching");

  // With the filters folded, the first job is a few tab stops from the top of the page.
  await page.goto(`/admin/jobs?q=${jobId}`);
  await expect(page.getByRole("link", { name: jobId })).toBeVisible();
  await skipToMain(page);
  const stops = await tabTo(page, page.getByRole("link", { name: jobId }), { max: 40 });
  expect(stops).toBeLessThanOrEqual(20);

  // Open the job, re-run it: focus ends on the new job's heading, not on <body>.
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: jobId })).toBeVisible();
  const rerun = page.getByRole("button", { name: "Re-run job" });
  await tabTo(page, rerun);
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(new RegExp(`/admin/jobs/${jobId}$`));
  const newId = page.url().split("/").at(-1)!;
  const heading = page.getByRole("heading", { name: newId });
  await expect(heading).toBeVisible();
  await expect.poll(() => isFocused(heading)).toBe(true);
});

test("[ADMIN] every console page fits a 390 px phone: no page-wide sideways scroll, tables scroll in their own box", async ({
  page,
}) => {
  const admin = await signedInRequest(ADMIN);
  await page.context().addCookies((await admin.storageState()).cookies);
  await admin.dispose();
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [path, heading] of [
    ["/admin", "Overview"],
    ["/admin/jobs", "Jobs"],
    ["/admin/runtimes", "Runtimes"],
    ["/admin/audit", "Audit log"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: heading }).first()).toBeVisible();
    await expect(page.getByRole("button", { name: /sign out/i })).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    await expectAccessible(page, `phone ${path}`);
  }
});
