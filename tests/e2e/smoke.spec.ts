import { expect, test } from "@playwright/test";
import { expectAccessible } from "./a11y";

test("[PUBLIC] the app serves its health check and the sign-in page", async ({ page, request }) => {
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, database: "up" });
  await page.goto("/sign-in");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  await expectAccessible(page, "sign-in");
});
