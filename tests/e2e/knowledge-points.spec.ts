import { expect, test } from "@playwright/test";
import { shot, signIn } from "./learner-helpers";
import { createNewLearner } from "./new-learner";

/**
 * The sixth job type in the browser, against the real app and reference Runtime (local analyzer):
 * a material → "Suggest knowledge points" → the proposals, each with the passage it comes from →
 * tick some → accept → they are the material's knowledge points, and shown as such.
 */
const TEXT = `# Photosynthesis

Photosynthesis turns light energy into chemical energy stored in glucose. It runs in the chloroplasts of plant cells.

## Light reactions
In the thylakoid membranes, chlorophyll absorbs light, splits water and releases oxygen. The light reactions make ATP and NADPH.

## Calvin cycle
In the stroma, the enzyme RuBisCO fixes carbon dioxide. The Calvin cycle spends ATP and NADPH to build glucose from carbon dioxide.`;

test("[LEARNER] suggests knowledge points for a material, and the accepted ones become its knowledge points", async ({
  page,
}) => {
  const who = await createNewLearner();
  await signIn(page, who);
  await page.goto("/");
  await page.getByTestId("first-run").getByRole("button", { name: "Add your first material" }).click();
  await page.getByLabel("Title", { exact: true }).fill("Plant biology");
  await page.getByLabel("Text", { exact: true }).fill(TEXT);
  await page.getByLabel("Knowledge points (one per line)").fill("Chlorophyll\n");
  await page.getByRole("button", { name: "Save material" }).click();
  const material = page.getByTestId("material");
  await expect(material.getByTestId("knowledge-point")).toHaveText(["Chlorophyll"]);

  // Without consent the suggestion is refused, and says why.
  await material.getByRole("button", { name: "Suggest knowledge points Plant biology" }).click();
  await expect(material.getByRole("alert")).toContainText("AI analysis is turned off");
  await page.getByRole("switch", { name: "Let AI analyse my learning" }).click();
  await expect(page.getByRole("switch", { name: "Let AI analyse my learning" })).toHaveAttribute(
    "aria-checked",
    "true",
  );

  await material.getByRole("button", { name: "Suggest knowledge points Plant biology" }).click();
  const proposals = material.getByTestId("kp-proposal");
  await expect(proposals.first()).toBeVisible({ timeout: 30_000 });
  await expect(material.getByRole("heading", { name: "Suggested knowledge points" })).toBeVisible();
  // Its own title, exactly (another proposal's passage may mention "the light reactions").
  const light = proposals.filter({ has: page.getByText("Light reactions", { exact: true }) });
  // The sentence it is read from, then the next one of its section; the summary says it in a line of its own.
  await expect(light.getByRole("blockquote")).toHaveText(
    /^In the thylakoid membranes, chlorophyll absorbs light, splits water and releases oxygen\./,
  );
  await expect(material.getByRole("button", { name: "Suggest again Plant biology" })).toBeEnabled();
  await shot(page, "kp-proposals");

  // "Run all five" stays five: the sixth type is not an analysis card.
  await expect(page.getByTestId("card-knowledge_point_extraction")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Run all five" })).toBeVisible();

  const accept = material.getByRole("button", { name: /^Accept/ });
  await expect(accept).toBeDisabled();
  await material.getByRole("checkbox", { name: /^Light reactions/ }).check();
  await material.getByRole("checkbox", { name: /^Calvin cycle/ }).check();
  await expect(accept).toHaveText("Accept 2 knowledge points");
  await accept.click();
  await expect(material.getByRole("status").filter({ hasText: "2 knowledge points added." })).toBeVisible();
  await expect(material.getByTestId("knowledge-point")).toHaveText(["Chlorophyll", "Light reactions", "Calvin cycle"]);
  // Accepted ones are now marked, and cannot be accepted twice.
  await expect(light).toContainText("Already a knowledge point");
  await expect(material.getByRole("checkbox", { name: /^Light reactions/ })).toBeDisabled();
  // The target picker lists them at once.
  await expect(
    page.getByLabel("What should the AI look at?").locator("option", { hasText: "Calvin cycle" }),
  ).toHaveCount(1);
  await shot(page, "kp-accepted");

  // After a reload the suggestion is still there, with what was accepted.
  await page.reload();
  await expect(
    page
      .getByTestId("material")
      .getByTestId("kp-proposal")
      .filter({ has: page.getByText("Calvin cycle", { exact: true }) }),
  ).toContainText("Already a knowledge point");
});
