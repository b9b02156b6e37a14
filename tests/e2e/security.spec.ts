import { expect, test, type Page } from "@playwright/test";
import { ADMIN } from "./admin-helpers";
import { ADA, BEN } from "./learner-helpers";

/** Every CSP violation and script error the page reports, from its first byte. */
async function watchViolations(page: Page) {
  const seen: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) seen.push(m.text());
  });
  page.on("pageerror", (e) => seen.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Refused to (CSP) ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return seen;
}

function expectCommonHeaders(res: { headers(): Record<string, string> }) {
  const h = res.headers();
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(h["x-frame-options"]).toBe("DENY");
  expect(h["x-powered-by"]).toBeUndefined();
  expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
}

async function signInThroughForm(page: Page, who: { email: string; password: string }) {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

test.describe("[PUBLIC] open redirect after sign-in", () => {
  for (const next of ["/%09/evil.com", "/%5C/evil.com", "//evil.com", "/%0d%0a/evil.com", "/%E3%80%82/evil.com"]) {
    test(`?next=${next} keeps the browser on this site`, async ({ page, context }) => {
      const offSite: string[] = [];
      context.on("request", (r) => {
        if (new URL(r.url()).hostname !== "127.0.0.1") offSite.push(r.url());
      });
      const first = await page.goto(`/sign-in?next=${next}`);
      expect(first!.status()).toBe(200);
      await signInThroughForm(page, ADA);
      await page.waitForURL((url) => url.pathname !== "/sign-in");
      expect(new URL(page.url()).hostname).toBe("127.0.0.1");

      // Signed in, the sign-in page redirects on the server: the Location stays on this site too.
      const again = await page.goto(`/sign-in?next=${next}`);
      expect(again!.status()).toBeLessThan(500);
      expect(new URL(page.url()).hostname).toBe("127.0.0.1");
      expect(offSite).toEqual([]);
    });
  }
});

test.describe("[PUBLIC] security headers and the CSP", () => {
  test("pages, API answers and the Runtime protocol carry the headers; pages a nonce CSP", async ({
    page,
    request,
  }) => {
    const signInPage = (await page.goto("/sign-in"))!;
    expectCommonHeaders(signInPage);
    const csp = signInPage.headers()["content-security-policy"]!;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    // Next's own scripts carry this request's nonce; a second request gets another one.
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((n) => n === nonce)).toBe(true);
    const again = (await page.goto("/sign-in"))!;
    expect(again.headers()["content-security-policy"]).not.toContain(nonce!);

    for (const res of [
      await request.get("/api/health"),
      await request.post("/api/trpc/jobs.create", { data: {} }),
      await request.post("/internal/runtime/jobs/poll", { data: {} }),
    ]) {
      expectCommonHeaders(res);
      expect(res.headers()["content-security-policy"]).toContain("default-src 'none'");
      expect(res.status()).toBeLessThan(500);
    }
  });

  test("an injected inline script does not run; the pages still work under the CSP", async ({ page }) => {
    const violations = await watchViolations(page);
    await page.goto("/sign-in");
    // Markup an attacker got into the page (the classic XSS shape): inline handlers and a parsed
    // inline script without the nonce must not run.
    const ran = await page.evaluate(async () => {
      const w = window as unknown as { __injected?: string[] };
      w.__injected = [];
      // Positive signals that each injection had its chance: the browser's own CSP refusals, the
      // image's error event (after the inline handler's turn) and the frame's load (after its script's).
      const refusals: string[] = [];
      let refused!: () => void;
      const twoRefusals = new Promise<void>((r) => (refused = r));
      document.addEventListener("securitypolicyviolation", (e) => {
        refusals.push(e.violatedDirective);
        if (refusals.length >= 2) refused();
      });
      const box = document.createElement("div");
      box.innerHTML = `<img src="/nonexistent.png" onerror="window.__injected.push('onerror')"><a id="js-link" href="javascript:window.__injected.push('href')">x</a>`;
      const imgFailed = new Promise((r) => box.querySelector("img")!.addEventListener("error", r));
      document.body.appendChild(box);
      const frame = document.createElement("iframe");
      frame.srcdoc = "<script>parent.__injected.push('srcdoc')</script>";
      const frameLoaded = new Promise((r) => frame.addEventListener("load", r));
      document.body.appendChild(frame);
      (document.getElementById("js-link") as HTMLAnchorElement).click();
      await Promise.all([imgFailed, frameLoaded, twoRefusals]);
      return w.__injected;
    });
    expect(ran).toEqual([]);
    expect(violations.some((v) => v.includes("script-src"))).toBe(true);
    violations.length = 0;

    // Hydrated (the fetch-based submit shows the error without leaving the page), then signed in.
    await signInThroughForm(page, { email: BEN.email, password: "not-the-password" });
    await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
    expect(page.url()).not.toContain("error=");
    await signInThroughForm(page, ADMIN);
    await expect(page.getByRole("heading", { name: "Your AI study coach" })).toBeVisible();
    await page.goto("/admin");
    await expect(page.getByRole("heading").first()).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/admin");
    expect(violations).toEqual([]);
  });

  test("no page can be framed, not even by this site", async ({ page }) => {
    const signInUrl = new URL("/sign-in", test.info().project.use.baseURL).href;
    await page.goto("about:blank");
    // The iframe element's own load event fires for the app's page and for the browser's error page
    // in its place alike: the frame is settled when it has fired.
    await page.setContent(`<iframe src="${signInUrl}" onload="document.body.dataset.framed = 'loaded'"></iframe>`, {
      waitUntil: "domcontentloaded",
    });
    await page.waitForFunction(() => document.body.dataset.framed === "loaded");
    const frame = page.frames().find((f) => f !== page.mainFrame());
    const framedText = frame ? await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "") : "";
    expect(framedText).not.toContain("AI Job Runtime");
  });
});

test.describe("[PUBLIC] sign-in without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the form posts: the right password signs in, a wrong one shows the error; credentials never in a URL", async ({
    page,
  }) => {
    const urls: string[] = [];
    page.on("request", (r) => urls.push(`${r.method()} ${r.url()}`));
    await page.goto("/sign-in?next=/");
    await signInThroughForm(page, { email: BEN.email, password: "not-the-password" });
    await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/sign-in");

    await signInThroughForm(page, BEN);
    await expect(page.getByRole("heading", { name: "Your AI study coach" })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/");

    expect(urls.filter((u) => u.startsWith("POST")).every((u) => u.endsWith("/api/auth/sign-in-form"))).toBe(true);
    for (const u of urls) {
      expect(u).not.toContain("password");
      expect(u).not.toContain(encodeURIComponent(BEN.email));
      expect(u).not.toContain(BEN.email);
    }
  });
});
