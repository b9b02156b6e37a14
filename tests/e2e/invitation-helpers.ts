import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ADMIN, signedInRequest, trpc } from "./admin-helpers";

/**
 * Learner accounts for browser tests: an invitation made the way an operator makes
 * one — by an admin through the console's procedure, or by `npm run learner:invite` — then
 * accepted in a fresh browser context through the invitation page's form. Reusable by any spec
 * that needs a brand-new learner with nothing yet (the first-run path).
 */
export const NEW_PASSWORD = "a-new-learners-password";

export const newEmail = (tag = "learner") => `${tag}-${randomUUID().slice(0, 8)}@example.test`;

/** An invitation link from the console's procedure, as the signed-in demo admin. */
export async function inviteByConsole(email: string): Promise<string> {
  const admin = await signedInRequest(ADMIN);
  const res = await trpc<{ link: string }>(admin, "admin.learners.invite", { email }, "mutation");
  expect(res.status, JSON.stringify(res.error)).toBe(200);
  await admin.dispose();
  return res.data.link;
}

/** An invitation link from `npm run learner:invite -- <email>` against the browser tests' database: its last line. */
export function inviteByCli(email: string): string {
  const port = Number(process.env.E2E_PORT ?? 3400);
  const databaseUrl = fs.readFileSync(path.join(".data", `e2e-${port}.database-url`), "utf8").trim();
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/learner-invite.ts", email], {
    encoding: "utf8",
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BETTER_AUTH_URL: new URL(test.info().project.use.baseURL!).origin,
    },
    timeout: 120_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim().split("\n").at(-1)!;
}

/** Opens the link, sets the password (twice) and waits for the learner page. */
export async function acceptInvitation(page: Page, link: string, opts: { name?: string; password?: string } = {}) {
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Set up your account" })).toBeVisible();
  if (opts.name) await page.getByLabel("Your name (optional)").fill(opts.name);
  await page.getByLabel(/^Password \(at least/).fill(opts.password ?? NEW_PASSWORD);
  await page.getByLabel("Password again").fill(opts.password ?? NEW_PASSWORD);
  await page.getByRole("button", { name: "Create my account" }).click();
  await page.waitForURL((url) => url.pathname === "/");
}

/**
 * A brand-new learner, signed in, on the learner page, in a browser context of its own: invited
 * (by the console or the CLI) and accepted through the page. Close `page.context()` when done.
 */
export async function newLearnerPage(
  browser: Browser,
  opts: { via?: "console" | "cli"; email?: string; name?: string } = {},
): Promise<{ page: Page; email: string; password: string; link: string }> {
  const email = opts.email ?? newEmail();
  const link = opts.via === "cli" ? inviteByCli(email) : await inviteByConsole(email);
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const page = await context.newPage();
  await acceptInvitation(page, link, { name: opts.name });
  return { page, email, password: NEW_PASSWORD, link };
}
