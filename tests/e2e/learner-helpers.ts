import { expectAccessible } from "./a11y";
import { expect, test, type Page } from "@playwright/test";

/** Demo accounts from prisma/seed-data.ts. */
export const ADA = { email: "ada@example.com", password: "learner-demo-password" };
export const BEN = { email: "ben@example.com", password: "learner-demo-password" };

/** Signs in through better-auth's endpoint with the page's own request context (cookies land in the page). */
export async function signIn(page: Page, who: { email: string; password: string }) {
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const res = await page.request.post("/api/auth/sign-in/email", { data: who, headers: { origin } });
  expect(res.status(), await res.text()).toBe(200);
}

export const rows = (page: Page) => page.getByTestId("job-row");
export const rowsOf = (page: Page, type: string) => page.locator(`[data-testid=job-row][data-job-type=${type}]`);

/** A screenshot of the state, and axe over it (every state worth a screenshot is checked for accessibility). */
export async function shot(page: Page, name: string, opts: { axe?: boolean } = {}) {
  await page.screenshot({ path: `test-results/screenshots/learner-${name}.png`, fullPage: true });
  if (opts.axe !== false) await expectAccessible(page, `learner ${name}`);
}

/** Records every value the progress texts and status badges take, so a test can see them move. */
export async function recordProgress(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __seen: Set<string>; __statuses: Set<string> };
    w.__seen = new Set();
    w.__statuses = new Set();
    const scan = () => {
      document.querySelectorAll("[data-testid=job-row]").forEach((row) => {
        const stage = row.querySelector("[data-testid=job-stage]")?.textContent;
        const progress = row.querySelector("[data-testid=job-progress]")?.textContent;
        if (stage && progress) w.__seen.add(`${stage}|${progress}`);
        w.__statuses.add(row.getAttribute("data-status") ?? "");
      });
    };
    new MutationObserver(scan).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

export async function seenProgress(page: Page) {
  return page.evaluate(() => {
    const w = window as unknown as { __seen: Set<string>; __statuses: Set<string> };
    return { seen: [...w.__seen], statuses: [...w.__statuses] };
  });
}
