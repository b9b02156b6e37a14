import path from "node:path";
import pg from "pg";
import { chromium } from "@playwright/test";
import { startGroup, stopGroup } from "../lib/processes";
import { percentiles } from "./stats";

/**
 * A learner's click to a shown result, in Debian's chromium against the
 * production build, with the reference Runtime (local analyzer, no artificial delay) long-polling
 * as deployed. The demo learner Ada opens her page, clicks "Start Learning state" and waits for the
 * result (the mastery table of the new job's detail), `runs` times, each on a freshly loaded page.
 *
 * Where the time goes, from one clock (browser and database run on this machine):
 * - request: the click (a performance mark in the page) → the job's creation (its row's createdAt);
 * - pickup: created → locked (the lock event);
 * - stages: locked → result accepted (the succeeded event);
 * - push: accepted → the change event received by the page's EventSource (stamped by a listener
 *   the page gets before its own code runs);
 * - render: that event → the result visible (a MutationObserver's mark when the mastery table of
 *   the succeeded job is in the DOM), which includes the page's re-read of the finished job.
 */
export type ClickResult = Awaited<ReturnType<typeof clickToResult>>;

const PARTS = ["request", "pickup", "stages", "push", "render"] as const;

export async function clickToResult(opts: {
  db: pg.Client;
  appUrl: string;
  key: string;
  runs: number;
  log: (m: string) => void;
  runtimeEnv?: Record<string, string>;
}) {
  const { seed } = await import("../../prisma/seed");
  const { LEARNERS, DEMO_PASSWORDS } = await import("../../prisma/seed-data");
  await seed();
  const ada = LEARNERS[0]!;
  const runtime = startGroup(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "../../runtime/main.ts")],
    {
      RUNTIME_API_URL: opts.appUrl,
      RUNTIME_API_KEY: opts.key,
      RUNTIME_INSTANCE_ID: "click-bench-runtime",
      RUNTIME_PROVIDER: "local",
      RUNTIME_CONCURRENCY: "4",
      RUNTIME_LOCAL_DELAY_MS: "0",
      ...opts.runtimeEnv,
    },
    "runtime",
  );
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  try {
    // bypassCSP: the app's strict CSP refuses the string scripts the bench evaluates in the page.
    const context = await browser.newContext({ baseURL: opts.appUrl, bypassCSP: true });
    const signIn = await context.request.post("/api/auth/sign-in/email", {
      data: { email: ada.email, password: DEMO_PASSWORDS.learner },
      headers: { origin: opts.appUrl },
    });
    if (signIn.status() !== 200) throw new Error(`sign-in answered ${signIn.status()}`);
    // Before the page's own code: stamp every job change the page's EventSource receives.
    // (Page scripts are strings: tsx would name the functions with a helper the page does not have.)
    await context.addInitScript({ content: STAMP_EVENTS });
    const page = await context.newPage();
    // The page's own requests (tRPC procedures), to say which of them the render part waited for.
    const requests: { what: string; start: number; end?: number }[] = [];
    const started = new Map<object, { what: string; start: number; end?: number }>();
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (!u.pathname.startsWith("/api/trpc/")) return;
      const item = { what: u.pathname.slice("/api/trpc/".length), start: Date.now() };
      started.set(r, item);
      requests.push(item);
    });
    page.on("requestfinished", (r) => {
      const item = started.get(r);
      if (item) item.end = Date.now();
    });
    const samples: Record<(typeof PARTS)[number] | "total", number[]> = {
      request: [],
      pickup: [],
      stages: [],
      push: [],
      render: [],
      total: [],
    };
    // One warm-up run (the page's first compile of its chunks, the Runtime's first poll), then the runs.
    for (let run = -1; run < opts.runs; run++) {
      requests.length = 0;
      await page.goto("/");
      await page
        .getByTestId("live-indicator")
        .filter({ hasText: /Live updates on/ })
        .waitFor();
      await page.evaluate(WATCH_RESULT);
      await page.getByRole("button", { name: "Start Learning state" }).click();
      await page.waitForFunction("window.__shown", undefined, { timeout: 60_000 });
      const marks = (await page.evaluate(
        "({ click: window.__click, shown: window.__shown, events: window.__events })",
      )) as {
        click: number;
        shown: number;
        events: { id: string; status: string; at: number }[];
      };
      const { rows } = await opts.db.query(
        `SELECT j.id, EXTRACT(EPOCH FROM j."createdAt") * 1000 AS created,
           (SELECT EXTRACT(EPOCH FROM min(e."createdAt")) * 1000 FROM "JobEvent" e WHERE e."jobId" = j.id AND e."toStatus" = 'locked') AS locked,
           (SELECT EXTRACT(EPOCH FROM min(e."createdAt")) * 1000 FROM "JobEvent" e WHERE e."jobId" = j.id AND e."toStatus" = 'succeeded') AS accepted
         FROM "AiRuntimeJob" j WHERE j."userId" = $1 AND j."jobType" = 'learning_state_analysis' AND j."createdAt" >= to_timestamp($2 / 1000.0) AT TIME ZONE 'UTC' - interval '1 second'
         ORDER BY j."createdAt" DESC LIMIT 1`,
        [ada.id, marks.click],
      );
      const job = rows[0];
      if (!job?.accepted) throw new Error(`run ${run}: no succeeded job found after the click`);
      const received = marks.events.find((e) => e.id === job.id && e.status === "succeeded")?.at;
      if (!received) throw new Error(`run ${run}: the page received no succeeded event for ${job.id}`);
      if (run < 0) continue;
      const t = {
        request: Number(job.created) - marks.click,
        pickup: Number(job.locked) - Number(job.created),
        stages: Number(job.accepted) - Number(job.locked),
        push: received - Number(job.accepted),
        render: marks.shown - received,
        total: marks.shown - marks.click,
      };
      for (const k of Object.keys(t) as (keyof typeof t)[]) samples[k].push(t[k]);
      const during = requests
        .filter((r) => r.end && r.end >= received && r.start <= marks.shown)
        .map((r) => `${r.what} ${Math.round(r.start - received)}→${Math.round(r.end! - received)}`);
      opts.log(
        `click ${run + 1}/${opts.runs}: ${JSON.stringify(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])))}; requests after the event (ms from it): ${during.join("; ")}`,
      );
    }
    return {
      runs: opts.runs,
      totalMs: percentiles(samples.total),
      partsMs: Object.fromEntries(PARTS.map((p) => [p, percentiles(samples[p])])) as Record<
        (typeof PARTS)[number],
        ReturnType<typeof percentiles>
      >,
    };
  } finally {
    await browser.close();
    await stopGroup(runtime);
  }
}

/** Before the page's own code: every job change its EventSource receives, stamped on arrival. */
const STAMP_EVENTS = `
  window.__events = [];
  const Original = window.EventSource;
  window.EventSource = class extends Original {
    constructor(url, init) {
      super(url, init);
      this.addEventListener("job", (e) => {
        const at = performance.timeOrigin + performance.now();
        const change = JSON.parse(e.data);
        window.__events.push({ id: change.id, status: change.status, at });
      });
    }
  };`;

/** Marks the click (capture phase: before the button's handler) and the moment the succeeded job's result is in the DOM. */
const WATCH_RESULT = `(() => {
  window.__events = [];
  delete window.__click;
  delete window.__shown;
  document.addEventListener("click", () => {
    performance.mark("click");
    window.__click = window.__click ?? performance.timeOrigin + performance.now();
  }, { capture: true, once: true });
  const observer = new MutationObserver(() => {
    if (window.__click && document.querySelector("[data-testid=detail-body][data-status=succeeded] [data-testid=mastery-row]")) {
      performance.mark("result-shown");
      window.__shown = performance.timeOrigin + performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, attributes: true });
})()`;

export function clickMarkdown(r: ClickResult & { loadAverage?: number[] }): string[] {
  return [
    `A learner's click to a shown result (chromium, production build, reference Runtime with the local analyzer and no delay), ${r.runs} runs: **p50 ${r.totalMs.p50} ms, p95 ${r.totalMs.p95} ms** (load ${r.loadAverage?.join(" ") ?? "?"}).`,
    ``,
    `| part | p50 ms | p95 ms |`,
    `|---|---|---|`,
    ...PARTS.map((p) => `| ${p} | ${r.partsMs[p].p50} | ${r.partsMs[p].p95} |`),
    ``,
  ];
}
