import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { uid } from "../helpers/factories";
import { getDb } from "@/server/db";

/**
 * SIGNUP_MODE=open on the production build, in a real browser: the sign-up form works without
 * JavaScript (a plain form post to /api/auth/sign-up-form, 303 to the learner page with the
 * session cookie) and with it (better-auth's JSON endpoint, the answer shown in place). A refusal
 * is worded from the catalogue in the visitor's language on both paths, never better-auth's
 * English, and neither the email nor the password goes into a URL.
 */
let app: AppServer;
let browser: Browser;

beforeAll(async () => {
  app = await startAppServer({ databaseUrl: process.env.DATABASE_URL!, env: { SIGNUP_MODE: "open" } });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signUpPage(opts: { javaScriptEnabled: boolean; locale?: string }) {
  const context = await browser.newContext({ ...opts, baseURL: app.url });
  const page = await context.newPage();
  await page.goto("/sign-in", { timeout: 120_000 });
  return { context, page, form: page.getByRole("form", { name: opts.locale === "zh-CN" ? "注册" : "sign up" }) };
}

describe("[SYSTEM] open sign-up in the browser", () => {
  it("without JavaScript: a new account lands on the learner page, signed in as a learner", async () => {
    const email = `${uid("nojs")}@example.test`;
    const { context, page, form } = await signUpPage({ javaScriptEnabled: false });
    try {
      await form.getByLabel("Your name").fill("No Script");
      await form.getByLabel("Email").fill(email);
      await form.getByLabel(/^Password/).fill("a-long-enough-password");
      await form.getByRole("button", { name: "Create account" }).click();
      await page.waitForURL((url) => url.pathname === "/", { timeout: 120_000 });
      // The learner page's guard sends anyone without a session to /sign-in; its header names the learner.
      await expect(page.getByText("No Script", { exact: true }).count()).resolves.toBe(1);
      expect(new URL(page.url()).pathname).toBe("/");
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name.endsWith("session_token"))?.httpOnly).toBe(true);
      expect(await getDb().user.findUniqueOrThrow({ where: { email } })).toMatchObject({
        role: "learner",
        name: "No Script",
      });
    } finally {
      await context.close();
    }
  });

  it("without JavaScript: a taken email comes back with the reason in Chinese for a zh-CN browser; nothing is written", async () => {
    const email = `${uid("taken")}@example.test`;
    await getDb().user.create({ data: { id: uid("u"), email, name: "Taken", emailVerified: false } });
    const { context, page, form } = await signUpPage({ javaScriptEnabled: false, locale: "zh-CN" });
    try {
      await form.getByLabel("你的姓名").fill("重复");
      await form.getByLabel("邮箱").fill(email);
      await form.getByLabel(/^密码/).fill("a-long-enough-password");
      await form.getByRole("button", { name: "创建账户" }).click();
      await page.waitForURL((url) => url.searchParams.get("signup") === "ACCOUNT_EXISTS", { timeout: 120_000 });
      await expect(form.getByRole("alert").textContent()).resolves.toBe("这个邮箱已经注册过账户，请直接登录。");
      expect(page.url()).not.toContain(encodeURIComponent(email));
      expect(page.url()).not.toContain("a-long-enough-password");
      expect(await getDb().user.count({ where: { email } })).toBe(1);
      expect(await getDb().account.count({ where: { user: { email } } })).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("with JavaScript: the refusal is shown in place, in the catalogue's words", async () => {
    const email = `${uid("taken")}@example.test`;
    await getDb().user.create({ data: { id: uid("u"), email, name: "Taken", emailVerified: false } });
    const { context, page, form } = await signUpPage({ javaScriptEnabled: true });
    try {
      // Hydrated: React's keys are on the form, so the click goes to the script, not a form post.
      await page.waitForFunction(
        () => {
          const el = document.querySelector("form[aria-label='sign up']");
          return !!el && Object.keys(el).some((k) => k.startsWith("__react"));
        },
        undefined,
        { timeout: 120_000 },
      );
      await form.getByLabel("Your name").fill("Script");
      await form.getByLabel("Email").fill(email);
      await form.getByLabel(/^Password/).fill("a-long-enough-password");
      await form.getByRole("button", { name: "Create account" }).click();
      await form
        .getByRole("alert")
        .filter({ hasText: "This email already has an account. Sign in instead." })
        .waitFor({ timeout: 60_000 });
      expect(new URL(page.url()).search).toBe("");
      expect(await getDb().user.count({ where: { email } })).toBe(1);
    } finally {
      await context.close();
    }
  });
});
