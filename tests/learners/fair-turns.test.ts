import { describe, expect, it } from "vitest";
import { FairTurns } from "@/server/fair-turns";
import { jsonWriter, ReaderTooSlow } from "@/server/learners/json-stream";

/** A promise and its resolve: the test's hand on a piece of work. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("fair turns", () => {
  it("a tenant's backlog waits behind another tenant's first turn, not in front of it", async () => {
    const turns = new FairTurns(() => 1);
    const order: string[] = [];
    const hold = gate();
    const first = turns.run("a", async () => {
      order.push("a0");
      await hold.opened;
    });
    const backlog = [1, 2, 3, 4].map((i) => turns.run("a", async () => void order.push(`a${i}`)));
    const other = turns.run("b", async () => void order.push("b0"));
    expect(turns.stats()).toEqual({ busy: 1, waiting: 5, tenantsWaiting: 2 });
    hold.open();
    await Promise.all([first, ...backlog, other]);
    expect(order).toEqual(["a0", "a1", "b0", "a2", "a3", "a4"]);
    expect(turns.stats()).toEqual({ busy: 0, waiting: 0, tenantsWaiting: 0 });
  });

  it("a turn is given back when its work throws", async () => {
    const turns = new FairTurns(() => 1);
    await expect(turns.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await turns.run("b", async () => 7)).toBe(7);
  });
});

describe("an export's reader pace", () => {
  /** Writes `items` items of 1 KB; resolves to how the writing ended. */
  function write(out: ReturnType<typeof jsonWriter>, items: number) {
    return (async () => {
      await out.open({ format: "t" });
      await out.openList("items");
      for (let i = 0; i < items; i++) await out.item("x".repeat(1000));
      out.closeList();
      await out.close();
      return "closed";
    })().catch((e: unknown) => (e instanceof Error ? e.message : "failed"));
  }

  it("a steady reader at 4 KB/s finishes, with the minimum at 1 KB/s", async () => {
    const out = jsonWriter({ minBytesPerSecond: 1024, rateWindowMs: 1000, pieceBytes: 1024 });
    const writing = write(out, 16);
    const reader = out.stream.getReader();
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      await sleep(250); // 1 KB each quarter second
    }
    expect(await writing).toBe("closed");
    expect(bytes).toBeGreaterThan(16 * 1000);
  });

  it("a reader that stops is cut, with the reason, and the writer stops", async () => {
    const out = jsonWriter({ minBytesPerSecond: 1024, rateWindowMs: 200, pieceBytes: 1024 });
    const writing = write(out, 200);
    const reader = out.stream.getReader();
    await reader.read();
    // The reader stops here: the writer waits on it until the window finds it under the minimum.
    expect(await writing).toMatch(/under 1024 bytes a second/);
    await expect(reader.read()).rejects.toBeInstanceOf(ReaderTooSlow);
  });

  it("a download past its deadline is cut however fast it is read", async () => {
    const out = jsonWriter({ deadline: Date.now() + 100, pieceBytes: 1024 });
    const writing = write(out, 1000);
    const reader = out.stream.getReader();
    await reader.read();
    await sleep(150);
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toBeInstanceOf(ReaderTooSlow);
    expect(await writing).toMatch(/total time/);
  });
});
