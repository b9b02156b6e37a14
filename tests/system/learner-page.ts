import type { Browser, Page } from "playwright-core";
import type { Learner } from "../helpers/factories";
import { setPassword, signedInCookie } from "../helpers/auth";

/** A job change as a learner page's event stream delivered it. */
export type Push = { id: string; status: string };

/**
 * A learner's page at `baseUrl` in a context of its own, signed in with `password`, every job change
 * its event streams deliver recorded (read them with pushes()). Resolves once its live updates are on.
 */
export async function openLearnerPage(browser: Browser, baseUrl: string, learner: Learner, password: string) {
  await setPassword(learner.user.id, password);
  const [name, value] = (await signedInCookie(learner.user.email, password)).split("=") as [string, string];
  const context = await browser.newContext({ baseURL: baseUrl });
  await context.addCookies([{ name, value, url: baseUrl }]);
  await context.addInitScript(() => {
    const w = window as unknown as { __pushes: Push[]; EventSource: typeof EventSource };
    w.__pushes = [];
    const Native = w.EventSource;
    w.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        this.addEventListener("job", (e) => w.__pushes.push(JSON.parse((e as MessageEvent<string>).data)));
      }
    };
  });
  const page = await context.newPage();
  await page.goto("/", { timeout: 120_000 });
  await page.getByTestId("live-indicator").getByText("Live updates on").waitFor({ timeout: 60_000 });
  return page;
}

/** The job changes a page opened with openLearnerPage has received so far. */
export const pushes = (page: Page) => page.evaluate(() => (window as unknown as { __pushes: Push[] }).__pushes);
