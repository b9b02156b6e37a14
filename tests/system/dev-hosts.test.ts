import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/app-server";
import { stopGroup, waitForHttp } from "../../scripts/lib/processes";
import { setPassword } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";

/**
 * `npm run dev` must give a working page at both http://localhost and http://127.0.0.1:
 * Next's dev server refuses its scripts and HMR socket to hosts it was not told about, and the
 * zero-setup auth trusts exactly those two origins on the app's port. This starts `next dev`
 * (zero-setup: no BETTER_AUTH_URL) and signs in through the hydrated form at each host, under
 * the page CSP.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
let dev: ChildProcess | undefined;
let browser: Browser | undefined;
let port = 0;
let output = "";

beforeAll(async () => {
  port = process.env.PORT ? Number(process.env.PORT) : await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-dev-hosts-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    APP_DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "development",
  };
  delete env.BETTER_AUTH_URL;
  const child = spawn(path.join(ROOT, "node_modules", ".bin", "next"), ["dev", "-p", String(port)], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  dev = child;
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  // First compile of the page on a loaded machine takes a while.
  await waitForHttp(`http://127.0.0.1:${port}/sign-in`, 280_000);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
});

afterAll(async () => {
  await browser?.close();
  await stopGroup(dev);
});

describe("the dev server at localhost and at 127.0.0.1", () => {
  it.each(["localhost", "127.0.0.1"])("at %s the sign-in page hydrates and signs in", async (host) => {
    const learner = await createLearner();
    const password = `pw-${uid()}`;
    await setPassword(learner.user.id, password);
    const page = await browser!.newPage();
    const refused: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && /Refused|Content Security Policy|blocked/i.test(m.text())) refused.push(m.text());
    });
    page.on("response", (r) => {
      if (r.url().includes("/_next/") && r.status() >= 400) refused.push(`${r.status()} ${r.url()}`);
    });
    try {
      await page.goto(`http://${host}:${port}/sign-in`, { timeout: 240_000 });
      // Hydrated: a wrong password is answered in place by the script, not by a form post.
      await page.waitForFunction(() => document.querySelector("form[aria-label='sign in']") !== null);
      await expectHydrated(page);
      await page.getByLabel("Email").fill(learner.user.email);
      await page.getByLabel("Password").fill("not-the-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor({ timeout: 60_000 });
      expect(page.url()).not.toContain("error=");

      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname === "/", { timeout: 240_000 });
      expect(new URL(page.url()).hostname).toBe(host);
      expect(refused, output.slice(-2000)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

/** React attaches its fiber keys to the DOM when it hydrates; before that the form is plain HTML. */
async function expectHydrated(page: import("playwright-core").Page) {
  await page.waitForFunction(
    () => {
      const form = document.querySelector("form[aria-label='sign in']");
      return !!form && Object.keys(form).some((k) => k.startsWith("__react"));
    },
    undefined,
    { timeout: 240_000 },
  );
}
