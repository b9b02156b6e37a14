import { expect, test } from "@playwright/test";
import { ADMIN, signedInRequest, trpc } from "./admin-helpers";
import { ADA, signIn } from "./learner-helpers";

/**
 * Quotas in the browser: an admin lowers a learner's hourly limit on /admin/quotas
 * (audited), the learner's page says in plain words that the limit is reached and when more can
 * start, and the admin puts the default back.
 */
test.describe.configure({ mode: "serial" });

test("[ADMIN][LEARNER] a limit set on the Quotas page is what the learner meets, in plain words", async ({
  page,
  browser,
}) => {
  const admin = await signedInRequest(ADMIN);
  const ada = await signedInRequest(ADA);
  expect((await trpc(ada, "consent.set", { granted: true }, "mutation")).status).toBe(200);

  // The admin finds Ada and sets her hourly limit to what she has already used.
  await signIn(page, ADMIN);
  await page.goto("/admin/quotas");
  await page.getByLabel("Learner email or id").fill(ADA.email);
  await page.getByRole("button", { name: "Show" }).click();
  const row = page.getByTestId("quota-jobs-hour");
  await expect(row).toBeVisible();
  const used = Number(await row.locator("td").nth(1).textContent());
  await row.getByLabel(/New limit/).fill(String(used));
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row).toContainText("raised or lowered for this learner");
  const audit = await trpc<{ items: { action: string; scope: { userId: string; allowed: number } }[] }>(
    admin,
    "admin.monitor.audit",
    { limit: 5 },
    "query",
  );
  expect(audit.data.items.some((a) => a.action === "quota.set_limit" && a.scope.allowed === used)).toBe(true);

  // Ada's page says so before she tries, and again when she tries.
  const learner = await browser.newPage();
  await signIn(learner, ADA);
  await learner.goto("/");
  await expect(learner.getByTestId("quota-line")).toHaveText(
    /You have used all your analyses for now\. You can start more at .+\./,
  );
  await learner.getByRole("button", { name: "Start Weak points" }).click();
  await expect(learner.getByRole("status").filter({ hasText: "You have reached your limit of" })).toHaveText(
    new RegExp(`You have reached your limit of ${used} analys[ie]s an hour\\. You can start more at .+\\.`),
  );
  const me = await trpc<{ user: { id: string } }>(ada, "me.get", undefined, "query");
  const refused = await trpc(
    ada,
    "jobs.create",
    { jobType: "weak_point_analysis", target: { type: "user", id: me.data.user.id } },
    "mutation",
  );
  expect(refused.status).toBe(429);
  expect(refused.error.data.appCode).toBe("QUOTA_EXCEEDED");

  // Back to the default: Ada can start analyses again.
  await row.getByRole("button", { name: "Default" }).click();
  await expect(row).not.toContainText("raised or lowered");
  await learner.reload();
  await expect(learner.getByTestId("quota-line")).toHaveText(
    /You can start [\d,]+ more analys[ie]s this hour and [\d,]+ more today\./,
  );
  await learner.close();
});
