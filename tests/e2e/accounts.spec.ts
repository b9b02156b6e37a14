import { expect, test } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { ADMIN, signIn } from "./admin-helpers";
import { acceptInvitation, inviteByCli, inviteByConsole, newEmail, newLearnerPage } from "./invitation-helpers";

/** Learner accounts in production (docs/contract.md#learners-and-their-data): invitations from the console and the shell. */
test("[ADMIN] invites a learner in the console; the link sets a password and lands on the learner page", async ({
  page,
  browser,
}) => {
  // Two pages, two accessibility scans and a sign-up: more than the default budget on a busy machine.
  test.slow();
  await signIn(page.request, ADMIN);
  await page.goto("/admin/learners");
  await expect(page.getByRole("heading", { name: "Learners" })).toBeVisible();
  const email = newEmail("console");
  await page.getByLabel("Invite by email").fill(email);
  await page.getByRole("button", { name: "Invite", exact: true }).click();
  const link = (await page.getByTestId("invitation-link").textContent())!.trim();
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await page.getByLabel("Search email or name").fill(email);
  await expect(page.getByTestId(`learner-${email}`)).toContainText("invited");
  await page.screenshot({ path: "test-results/screenshots/admin-learners.png", fullPage: true });
  await expectAccessible(page, "admin learners");

  const learner = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const learnerPage = await learner.newPage();
  await learnerPage.goto(link);
  await expectAccessible(learnerPage, "invitation page");
  await acceptInvitation(learnerPage, link, { name: "Grace Hopper" });
  await expect(learnerPage.getByText("Grace Hopper")).toBeVisible();
  await learnerPage.screenshot({ path: "test-results/screenshots/invited-learner-home.png", fullPage: true });

  // The link worked once: opened again it says so, in plain words, not a 500.
  await learnerPage.goto(link);
  await expect(learnerPage.getByRole("heading", { name: "This invitation was already used" })).toBeVisible();
  await learner.close();

  await page.reload();
  await page.getByLabel("Search email or name").fill(email);
  await expect(page.getByTestId(`learner-${email}`)).toContainText("accepted");
  await expect(page.getByTestId(`learner-${email}`)).toContainText("password");
});

test("[LEARNER] a link from npm run learner:invite sets a password and lands on the learner page", async ({
  browser,
}) => {
  const { page, email } = await newLearnerPage(browser, { via: "cli" });
  await expect(page).toHaveURL(/\/$/);
  const me = await page.request.get("/api/auth/get-session");
  expect((await me.json()).user.email).toBe(email);
  await page.context().close();
});

test("[ADMIN] a re-sent invitation kills the old link; a revoked one shows a clear page", async ({ page, browser }) => {
  const email = newEmail("resend");
  const first = inviteByCli(email);
  await signIn(page.request, ADMIN);
  await page.goto("/admin/learners");
  await page.getByLabel("Search email or name").fill(email);
  const row = page.getByTestId(`learner-${email}`);
  await row.getByRole("button", { name: "Re-send" }).click();
  const second = (await page.getByTestId("invitation-link").textContent())!.trim();
  expect(second).not.toBe(first);
  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Confirm revoke" }).click();
  await expect(row).toContainText("revoked");

  const visitor = await browser.newPage({ baseURL: test.info().project.use.baseURL });
  await visitor.goto(first);
  await expect(visitor.getByRole("heading", { name: "This invitation link is not valid" })).toBeVisible();
  const res = await visitor.goto(second);
  expect(res?.status()).toBe(200);
  await expect(visitor.getByRole("heading", { name: "This invitation was withdrawn" })).toBeVisible();
  await visitor.close();
});

test("[LEARNER] a too-short password is refused on the page with the rule, and the link still works", async ({
  browser,
}) => {
  const link = inviteByCli(newEmail("short"));
  const page = await browser.newPage({ baseURL: test.info().project.use.baseURL });
  await page.goto(link);
  await page.getByLabel(/^Password \(at least/).evaluate((el) => el.removeAttribute("minlength"));
  await page.getByLabel("Password again").evaluate((el) => el.removeAttribute("minlength"));
  await page.getByLabel(/^Password \(at least/).fill("short");
  await page.getByLabel("Password again").fill("short");
  await page.getByRole("button", { name: "Create my account" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Choose a password of 12 to 128 characters" })).toBeVisible();
  await acceptInvitation(page, link);
  await page.close();
});

test("[LEARNER] single sign-on: the button, the provider's own login and consent pages, back signed in", async ({
  browser,
}) => {
  // SIGNUP_MODE is the default (invite): the provider's user needs an invitation, which SSO uses up.
  const email = newEmail("sso");
  await inviteByConsole(email);
  const page = await browser.newPage({ baseURL: test.info().project.use.baseURL });
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  // The provider (oidc-provider on its own port): a different origin, its own forms.
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill("whatever-the-idp-checks");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  const origin = new URL(test.info().project.use.baseURL!).origin;
  await page.waitForURL((url) => url.origin === origin && url.pathname === "/");
  const me = await page.request.get("/api/auth/get-session");
  expect((await me.json()).user.email).toBe(email);
  await page.close();

  // Someone the provider knows but nobody invited gets a plain refusal on the sign-in page.
  const stranger = await browser.newPage({ baseURL: test.info().project.use.baseURL });
  await stranger.goto("/sign-in");
  await stranger.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await stranger.locator('input[name="login"]').fill(newEmail("stranger"));
  await stranger.locator('input[name="password"]').fill("whatever-the-idp-checks");
  await stranger.getByRole("button", { name: "Sign-in" }).click();
  await stranger.getByRole("button", { name: "Continue" }).click();
  await stranger.waitForURL((url) => url.origin === origin && url.pathname === "/sign-in");
  await expect(stranger.getByRole("alert").filter({ hasText: "Ask an administrator for an invitation" })).toBeVisible();
  await stranger.close();
});
