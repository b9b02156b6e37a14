import { afterEach, describe, expect, it, vi } from "vitest";

const ENV = ["INNGEST_DEV", "INNGEST_SIGNING_KEY", "INNGEST_EVENT_KEY"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

async function loadRoute(env: Partial<Record<(typeof ENV)[number], string>>) {
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, env);
  vi.resetModules();
  return import("@/app/api/inngest/route");
}

afterEach(() => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  vi.resetModules();
});

describe("/api/inngest", () => {
  it("answers its introspection GET in explicit dev mode (INNGEST_DEV=1), listing our functions", async () => {
    const route = await loadRoute({ INNGEST_DEV: "1" });
    const res = await route.GET(new Request("http://localhost:3000/api/inngest") as never, undefined as never);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.mode).toBe("dev");
    // execute, sweep, prune, weekly analyses, notify, bulk runs, review digests.
    expect(body.function_count).toBe(7);
  });

  it("refuses unsigned calls when a signing key is configured", async () => {
    const route = await loadRoute({
      INNGEST_SIGNING_KEY: "signkey-prod-0123456789abcdef0123456789abcdef",
      INNGEST_EVENT_KEY: "evt",
    });
    const res = await route.POST(
      new Request("http://localhost:3000/api/inngest?fnId=ai-job-runtime-sweep-leases&stepId=step", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event: {}, events: [], steps: {}, ctx: {} }),
      }) as never,
      undefined as never,
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it("does not serve without a signing key unless dev mode is chosen explicitly", async () => {
    const route = await loadRoute({});
    const res = await route.POST(
      new Request("http://localhost:3000/api/inngest?fnId=ai-job-runtime-sweep-leases&stepId=step", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }) as never,
      undefined as never,
    );
    expect(res.status).not.toBe(200);
  });
});
