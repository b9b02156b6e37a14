import { expect, test, type Locator, type Page } from "@playwright/test";
import { ADMIN, holdReferenceRuntime, signedInRequest } from "./admin-helpers";
import { ADA, BEN, rowsOf, shot, signIn } from "./learner-helpers";

const TYPES = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
];
const CHEN = { email: "chen@example.com", password: "learner-demo-password" };

test("[LEARNER] turning AI consent off cancels pending work at once and blocks new analyses", async ({ page }) => {
  await signIn(page, CHEN);
  await page.goto("/");
  const consent = page.getByRole("switch", { name: "Let AI analyse my learning" });
  // On (as seeded); a rerun against the same database may find it off.
  if ((await consent.getAttribute("aria-checked")) === "false") await consent.click();
  await expect(consent).toHaveAttribute("aria-checked", "true");
  // The Runtime is held off these types (the admin's key-scope control), so every analysis started
  // below is still waiting when AI is turned off: the test asserts that state, not a race with it.
  const admin = await signedInRequest(ADMIN);
  const release = await holdReferenceRuntime(admin, TYPES);
  try {
    await consentOffCancels(page, consent);
  } finally {
    await release();
    await admin.dispose();
  }
  await consent.click();
  await expect(consent).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("button", { name: "Run all five" })).toBeEnabled();
});

async function consentOffCancels(page: Page, consent: Locator) {
  // Every type for each material and knowledge point, started at once, and "Run all five".
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const list = (await (await page.request.get("/api/trpc/targets.list")).json()).result.data as {
    materials: { id: string; knowledgePoints: { id: string }[] }[];
  };
  const targets = list.materials.flatMap((m) => [
    ["material", m.id],
    ...m.knowledgePoints.map((k) => ["knowledge_point", k.id]),
  ]);
  expect(targets.length).toBeGreaterThanOrEqual(4);
  const started = targets.map(([type, id]) =>
    page.request.post("/api/trpc/analyses.trigger", {
      headers: { origin },
      data: { target: { type, id }, jobTypes: TYPES },
    }),
  );
  await page.getByRole("button", { name: "Run all five" }).click();
  let created = 0;
  for (const res of await Promise.all(started)) {
    expect(res.status()).toBe(200);
    created += ((await res.json()).result.data.items as { created: boolean }[]).filter((j) => j.created).length;
  }
  await expect(page.getByRole("status").filter({ hasText: "Started 5 analyses" })).toBeVisible();
  await shot(page, "running");
  await consent.click();
  const notice = page.getByRole("status").filter({ hasText: "AI analysis is off" });
  await expect(notice).toBeVisible();
  const cancelledNow = Number((await notice.textContent())!.match(/(\d+) waiting/)![1]);
  // All of them were waiting: the targets' analyses and the five of "Run all five".
  expect(cancelledNow).toBe(created + 5);
  await expect(consent).toHaveAttribute("aria-checked", "false");

  // Nothing is left in flight.
  await expect(
    page.locator(
      "[data-testid=job-row][data-status=pending], [data-testid=job-row][data-status=running], [data-testid=job-row][data-status=locked]",
    ),
  ).toHaveCount(0, { timeout: 30_000 });
  // The newest twenty are listed, and the last ones started are the ones that were still waiting.
  const cancelledRows = page.locator("[data-testid=job-row][data-status=cancelled]");
  await expect.poll(() => cancelledRows.count()).toBeGreaterThanOrEqual(Math.min(cancelledNow, 10));
  await expect(page.getByRole("button", { name: "Run all five" })).toBeDisabled();
  await expect(page.getByText("AI analysis is off. Turn it on")).toBeVisible();
  await shot(page, "consent-off");
}

test("[LEARNER] another learner cannot open the first one's job by URL", async ({ page, browser }) => {
  await signIn(page, ADA);
  await page.goto("/");
  await page.getByRole("button", { name: "Start Weak points" }).click();
  // Of its type, not just the newest row: the weekly analyses may add jobs of other types meanwhile.
  const row = rowsOf(page, "weak_point_analysis").first();
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  const jobId = (await row.getAttribute("data-job-id"))!;
  await page.goto(`/jobs/${jobId}`);
  await expect(page.getByTestId("detail-title")).toContainText("Weak points");

  const other = await browser.newContext();
  const benPage = await other.newPage();
  await signIn(benPage, BEN);
  await benPage.goto(`/jobs/${jobId}`);
  await expect(benPage.getByTestId("job-not-found")).toHaveText("This analysis does not exist, or it is not yours.");
  await expect(benPage.getByTestId("weak-point")).toHaveCount(0);
  await expect(benPage.locator(`[data-job-id="${jobId}"]`)).toHaveCount(0);
  const api = await benPage.request.get(`/api/trpc/jobs.get?input=${encodeURIComponent(JSON.stringify({ jobId }))}`);
  expect(api.status()).toBe(404);
  expect(await api.text()).not.toContain("weakPoints");
  await shot(benPage, "foreign-job");
  await other.close();
});
