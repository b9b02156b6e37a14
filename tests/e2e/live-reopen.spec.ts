import { expect, test, type Page } from "@playwright/test";
import { ADA, ADMIN, signIn } from "./admin-helpers";

/**
 * A load balancer answers the event stream with 503 while no instance is ready (a restart, a
 * failover). The browser's EventSource closes for good on an error status; the learner page and
 * the admin console open a new stream, backing off, and are live again once it is let through.
 * The route is the control: the stream is refused until the test lets it pass.
 */
async function refuseStreamUntilLetThrough(page: Page) {
  let refusing = true;
  let refused = 0;
  await page.route("**/api/jobs/events", (route) => {
    if (!refusing) return route.fallback();
    refused++;
    return route.fulfill({ status: 503, contentType: "text/html", body: "<h1>503 Service Unavailable</h1>" });
  });
  return {
    refused: () => refused,
    letThrough: () => {
      refusing = false;
    },
  };
}

const sides = [
  {
    who: ADA,
    path: "/",
    indicator: (p: Page) => p.getByTestId("live-indicator"),
    down: /Reconnecting/,
    up: /Live updates on/,
  },
  {
    who: ADMIN,
    path: "/admin",
    indicator: (p: Page) => p.getByRole("button", { name: /pause|resume/ }),
    down: /Polling/,
    up: /^Live/,
  },
] as const;

for (const side of sides) {
  test(`[${side.who === ADMIN ? "ADMIN" : "LEARNER"}] a stream refused with 503 is reopened, and the page is live again once it is let through`, async ({
    page,
  }) => {
    const stream = await refuseStreamUntilLetThrough(page);
    await signIn(page.request, side.who);
    await page.goto(side.path);
    await expect(side.indicator(page)).toHaveText(side.down);
    // A second request after a 503 is the page's own: EventSource never retries an error status.
    await expect.poll(stream.refused, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await expect(side.indicator(page)).toHaveText(side.down);
    stream.letThrough();
    await expect(side.indicator(page)).toHaveText(side.up, { timeout: 30_000 });
  });
}
