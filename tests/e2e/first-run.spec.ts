import { expect, test, type Page } from "@playwright/test";
import { rowsOf, shot, signIn } from "./learner-helpers";
import { createNewLearner } from "./new-learner";
import { acceptInvitation, inviteByConsole, newEmail } from "./invitation-helpers";

/**
 * A brand-new learner's first run, in the browser against the real app and Runtime: the
 * invitation link → their password → nothing yet →
 * what to do first → a material with two knowledge points (typed, or from an uploaded .md file) →
 * AI on → "Run all five" → the results.
 */
const TYPES = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
] as const;

async function runAllFiveAndSeeResults(page: Page) {
  const consent = page.getByRole("switch", { name: "Let AI analyse my learning" });
  await expect(consent).toHaveAttribute("aria-checked", "false");
  await consent.click();
  await expect(consent).toHaveAttribute("aria-checked", "true");
  await page.getByRole("button", { name: "Run all five" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Started 5 analyses" })).toBeVisible();
  for (const type of TYPES)
    await expect(rowsOf(page, type).first()).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await rowsOf(page, "learning_state_analysis").first().getByRole("button").first().click();
  await expect(page.getByText("Overall mastery", { exact: true })).toBeVisible();
  await expect(page.getByTestId("mastery-row")).toHaveCount(2);
  await rowsOf(page, "flashcard_generation").first().getByRole("button").first().click();
  await expect(page.getByTestId("flashcard").first()).toBeVisible();
  // The guide has done its job once there are analyses.
  await expect(page.getByTestId("first-run")).toHaveCount(0);
}

test("[LEARNER] an invited learner sets a password and is guided: add a material with two knowledge points, run all five, see results", async ({
  page,
}) => {
  // The whole first run of a real learner: the admin's invitation link → the password → the learner page.
  await acceptInvitation(page, await inviteByConsole(newEmail("first-run")));
  await expect(page).toHaveURL(/\/$/);
  const guide = page.getByTestId("first-run");
  await expect(guide.getByRole("heading", { name: /Three steps to your first analysis/ })).toBeVisible();
  // No empty panels: no analyses, no history, no target picker yet.
  await expect(page.getByRole("heading", { name: "Analyses" })).toHaveCount(0);
  await expect(page.getByLabel("What should the AI look at?")).toHaveCount(0);
  await shot(page, "first-run");

  await guide.getByRole("button", { name: "Add your first material" }).click();
  await page.getByLabel("Title", { exact: true }).fill("Newtonian mechanics");
  await page
    .getByLabel("Text", { exact: true })
    .fill("Force equals mass times acceleration.\nEvery action has an equal and opposite reaction.");
  await page.getByLabel("Knowledge points (one per line)").fill("Newton's second law\nNewton's third law\n");
  await shot(page, "material-form");
  await page.getByRole("button", { name: "Save material" }).click();

  const material = page.getByTestId("material");
  await expect(material).toHaveCount(1);
  await expect(material.getByTestId("knowledge-point")).toHaveText(["Newton's second law", "Newton's third law"]);
  await expect(guide.getByText("Done")).toHaveCount(2);
  // The target picker has them at once.
  const picker = page.getByLabel("What should the AI look at?");
  await expect(picker.locator("option")).toHaveText([
    "Everything I study",
    "Newtonian mechanics (whole material)",
    "Newton's second law",
    "Newton's third law",
  ]);
  await shot(page, "first-material");
  await runAllFiveAndSeeResults(page);
  await shot(page, "first-results");
});

test("[LEARNER] a material from an uploaded .md file, knowledge points added, renamed and deleted, then all five analyses", async ({
  page,
}) => {
  const who = await createNewLearner();
  await signIn(page, who);
  await page.goto("/");
  await page.getByTestId("first-run").getByRole("button", { name: "Add your first material" }).click();
  const file = page.getByLabel("Load from a file");
  // A file over 200 KB is refused before it is sent, with the reason.
  await file.setInputFiles({ name: "big.md", mimeType: "text/markdown", buffer: Buffer.alloc(210 * 1024, "a") });
  await expect(page.getByText("That file is 210 KB; at most 200 KB is allowed.")).toBeVisible();
  await file.setInputFiles({
    name: "Cell biology.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# Cells\n\nMitochondria make ATP.\nThe membrane controls what enters the cell.\n"),
  });
  await expect(page.getByLabel("Title", { exact: true })).toHaveValue("Cell biology");
  await expect(page.getByLabel("Text", { exact: true })).toHaveValue(/Mitochondria make ATP/);
  await page.getByLabel("Knowledge points (one per line)").fill("Mitochondria");
  await page.getByRole("button", { name: "Save material" }).click();

  const material = page.getByTestId("material");
  await expect(material.getByTestId("knowledge-point")).toHaveText(["Mitochondria"]);
  for (const title of ["Membrane", "Ribosomes"]) {
    await material.getByLabel("New knowledge point").fill(title);
    await material.getByRole("button", { name: "Add a knowledge point" }).click();
    await expect(material.getByTestId("knowledge-point").filter({ hasText: title })).toBeVisible();
  }
  await material.getByRole("button", { name: "Rename knowledge point Membrane" }).click();
  await material.getByLabel("Rename knowledge point Membrane").fill("Cell membrane");
  await material.getByRole("button", { name: "Save" }).click();
  await material.getByRole("button", { name: "Delete knowledge point Ribosomes" }).click();
  await expect(material.getByTestId("knowledge-point")).toHaveText(["Mitochondria", "Cell membrane"]);
  await page.getByLabel("What should the AI look at?").selectOption({ label: "Cell biology (whole material)" });
  await runAllFiveAndSeeResults(page);
});

test("[LEARNER] download my data, then delete my account with a typed confirmation: signed out, cannot sign in", async ({
  page,
}) => {
  const who = await createNewLearner();
  await signIn(page, who);
  await page.goto("/");
  await page.getByTestId("first-run").getByRole("button", { name: "Add your first material" }).click();
  await page.getByLabel("Title", { exact: true }).fill("Private notes");
  await page.getByLabel("Text", { exact: true }).fill("Things only I should see.");
  await page.getByRole("button", { name: "Save material" }).click();
  await expect(page.getByTestId("material")).toHaveCount(1);

  await page.getByRole("link", { name: "Account" }).click();
  await expect(page.getByRole("heading", { name: "Your account" })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download my data" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^my-data-\d{4}-\d{2}-\d{2}\.json$/);
  const data = JSON.parse(await (await file.createReadStream()).toArray().then((c) => Buffer.concat(c).toString()));
  expect(data.account.email).toBe(who.email);
  expect(data.materials.map((m: { title: string }) => m.title)).toEqual(["Private notes"]);
  await shot(page, "account");

  const erase = page.getByRole("button", { name: "Delete my account for good" });
  await expect(erase).toBeDisabled();
  await page.getByLabel(/Type your email address/).fill(who.email);
  await erase.click();
  await expect(page).toHaveURL(/\/sign-in\?deleted=1/);
  await expect(page.getByText("Your account and all your data have been deleted.")).toBeVisible();
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const again = await page.request.post("/api/auth/sign-in/email", { data: who, headers: { origin } });
  expect(again.status()).toBe(401);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});
