import { expect, test } from "@playwright/test";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { masteryOf } from "@/server/job-types/shared/statistics";
import { ADMIN, shot, signIn } from "./admin-helpers";
import { e2eDatabaseUrl } from "./new-learner";

/**
 * The console's Learners page as a teacher's view: per learner mastery (masteryOf), sorting by a
 * figure from the keyboard, filters by language (English, 简体中文) and forgotten points, all kept
 * in the URL. Two learners of their own (a tag in their names) are written straight into the e2e
 * database: one English with answers only, one Chinese with a card forgotten in Review.
 */
const tag = `teach${randomUUID().slice(0, 8)}`;
const DAY = 86_400_000;

test.beforeAll(async () => {
  const db = new pg.Client({ connectionString: e2eDatabaseUrl() });
  await db.connect();
  try {
    for (const [who, locale] of [
      ["en", "en"],
      ["zh", "zh-CN"],
    ] as const) {
      const id = `${tag}_${who}`;
      await db.query(
        `INSERT INTO "User" (id, email, name, role, locale, "createdAt", "updatedAt")
         VALUES ($1, $2, $3, 'learner', $4, now(), now())`,
        [id, `${id}@example.test`, `${tag} ${who}`, locale],
      );
      await db.query(
        `INSERT INTO "Material" (id, "userId", title, content, "createdAt") VALUES ($1, $2, 'M', 'text', now())`,
        [`${id}_m`, id],
      );
    }
    const point = (user: string, n: number, title: string) =>
      db.query(
        `INSERT INTO "KnowledgePoint" (id, "userId", "materialId", title, description, "createdAt") VALUES ($1, $2, $3, $4, '', now())`,
        [`${user}_k${n}`, user, `${user}_m`, title],
      );
    const answers = (user: string, kp: string, newestFirst: boolean[]) =>
      Promise.all(
        newestFirst.map((correct, i) =>
          db.query(
            `INSERT INTO "QuizAttempt" (id, "userId", "knowledgePointId", question, correct, "answeredAt")
             VALUES ($1, $2, $3, 'Q', $4, now() - ($5 || ' hours')::interval)`,
            [`${kp}_a${i}`, user, kp, correct, String(i + 1)],
          ),
        ),
      );
    const en = `${tag}_en`;
    const zh = `${tag}_zh`;
    await point(en, 1, "Tones");
    await point(en, 2, "Measure words");
    await answers(en, `${en}_k1`, [false, true]);
    await answers(en, `${en}_k2`, [true, true]);
    // The Chinese learner's one point: a card overdue by three days whose only review was Again.
    await point(zh, 1, "声调");
    await db.query(
      `INSERT INTO "ReviewCard" (id, "userId", kind, "knowledgePointId", front, back, due, reps, lapses, state, "lastReview", "createdAt")
       VALUES ($1, $2, 'flashcard', $3, 'Front', 'Back', $4, 1, 1, 3, $5, now())`,
      [`${zh}_c`, zh, `${zh}_k1`, new Date(Date.now() - 3 * DAY), new Date(Date.now() - 4 * DAY)],
    );
    await db.query(
      `INSERT INTO "ReviewLog" (id, "userId", "cardId", rating, state, "reviewedAt", stability, difficulty, "scheduledDays", due)
       VALUES ($1, $2, $3, 1, 2, $4, 1, 5, 1, $4)`,
      [`${zh}_l`, zh, `${zh}_c`, new Date(Date.now() - 4 * DAY)],
    );
  } finally {
    await db.end();
  }
});

const pct = (x: number) => `${Math.round(x * 100)} %`;

test("[ADMIN] Learners: mastery per point, sorting from the keyboard, language and forgotten filters in the URL", async ({
  page,
}) => {
  test.slow();
  await signIn(page.request, ADMIN);
  await page.goto(`/admin/learners?q=${tag}`);
  const en = page.getByTestId(`learner-${tag}_en@example.test`);
  const zh = page.getByTestId(`learner-${tag}_zh@example.test`);
  await expect(en.getByTestId("learner-language")).toContainText("English");
  await expect(zh.getByTestId("learner-language")).toContainText("简体中文");

  // Mastery is masteryOf on the answers: the mean over the points, the weakest with its figure.
  const tones = masteryOf([{ correct: false }, { correct: true }], undefined);
  const measure = masteryOf([{ correct: true }, { correct: true }], undefined);
  await expect(en.getByTestId("learner-mastery")).toContainText(`${pct((tones + measure) / 2)} mean`);
  await expect(en.getByTestId("learner-weakest")).toHaveText(`Tones ${pct(tones)}`);
  await expect(zh.getByTestId("learner-weakest")).toHaveText("声调 0 %");
  await expect(zh.getByTestId("learner-overdue")).toHaveText("1");
  await expect(zh.getByTestId("learner-forgotten")).toHaveText("1");
  // The full list opens from the keyboard.
  await en.getByText("2 points").focus();
  await page.keyboard.press("Enter");
  await expect(en.getByRole("listitem").filter({ hasText: "Measure words" })).toContainText(pct(measure));

  // Sort by overdue cards from the keyboard: most first, then fewest first.
  const overdue = page.getByRole("button", { name: "Overdue" });
  await overdue.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/sort=overdue/);
  await expect(page.getByRole("columnheader", { name: /Overdue/ })).toHaveAttribute("aria-sort", "descending");
  await expect(page.locator("tbody tr").first()).toHaveAttribute("data-testid", `learner-${tag}_zh@example.test`);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/dir=asc/);
  await expect(page.getByRole("columnheader", { name: /Overdue/ })).toHaveAttribute("aria-sort", "ascending");
  await expect(page.locator("tbody tr").first()).toHaveAttribute("data-testid", `learner-${tag}_en@example.test`);

  // Filters: English only, then 简体中文 with forgotten points (Space on the checkbox).
  await page.getByLabel("Language").selectOption("en");
  await expect(page).toHaveURL(/lang=en/);
  await expect(zh).toHaveCount(0);
  await expect(en).toBeVisible();
  await page.getByLabel("Language").selectOption("zh-CN");
  await page.getByLabel("Has forgotten points").focus();
  await page.keyboard.press("Space");
  await expect(page).toHaveURL(/forgotten=1/);
  await expect(en).toHaveCount(0);
  await expect(zh).toBeVisible();
  await shot(page, "learners-filtered");

  // The view is the URL: a reload keeps the sort and filters.
  await page.reload();
  await expect(page.getByLabel("Has forgotten points")).toBeChecked();
  await expect(page.getByLabel("Language")).toHaveValue("zh-CN");
  await expect(page.getByRole("columnheader", { name: /Overdue/ })).toHaveAttribute("aria-sort", "ascending");
  await expect(zh).toBeVisible();
  await expect(en).toHaveCount(0);
});
