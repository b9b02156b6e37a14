import { describe, expect, it } from "vitest";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { drainSignal, isDraining, lifecycle, onShutdown } from "@/server/lifecycle";

/** Liveness and readiness are separate: readiness fails while draining (and without a database: tests/system). */
describe("probes and the drain", () => {
  it("readiness is green, then 503 once draining starts; liveness stays 200; waiting requests are signalled", async () => {
    expect(live().status).toBe(200);
    // The probe's own deadline (2 s) is not what this asserts: a loaded machine may take longer to answer.
    process.env.READY_DB_TIMEOUT_MS = "120000";
    const before = await ready();
    delete process.env.READY_DB_TIMEOUT_MS;
    expect(before.status).toBe(200);
    expect(await before.json()).toMatchObject({ ok: true, database: "up", draining: false });
    const signal = drainSignal();
    expect(signal.aborted).toBe(false);

    const order: string[] = [];
    onShutdown("first", () => void order.push("first"));
    onShutdown("broken", () => {
      throw new Error("boom");
    });
    // A hook that never settles (a pool waiting on a database that is gone) gets its time, then the rest run.
    onShutdown("hung", () => new Promise(() => {}));
    onShutdown("last", async () => void order.push("last"));
    lifecycle().beginDrain();
    expect(isDraining()).toBe(true);
    expect(signal.aborted).toBe(true);
    const during = await ready();
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ ok: false, draining: true });
    expect(live().status).toBe(200);

    const logged: string[] = [];
    await lifecycle().stop((m) => logged.push(m), 200);
    // Reverse order of registration; one failing or hung hook neither stops the others nor throws.
    expect(order).toEqual(["last", "first"]);
    expect(logged).toEqual([
      "[shutdown] hung did not finish within 200 ms; going on",
      "[shutdown] broken failed: boom",
    ]);
  });
});
