import { describe, expect, it } from "vitest";
import { readTextWithin, readWithin } from "@/server/read-within";

/** The one capped reader behind the web doors, the Runtime API and the DeepSeek client. */
function stream(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}
const bytes = (n: number, fill = 97) => new Uint8Array(n).fill(fill);

describe("readWithin", () => {
  it("returns the body up to the limit, exactly at it included", async () => {
    const { body } = stream([bytes(4), bytes(6)]);
    expect((await readWithin(body, 10))?.byteLength).toBe(10);
    expect(await readWithin(null, 10)).toEqual(new Uint8Array(0));
  });

  it("refuses a declared length over the limit without reading a byte", async () => {
    const { body, state } = stream([bytes(4)]);
    expect(await readWithin(body, 10, { declaredLength: "11" })).toBeNull();
    expect(state).toEqual({ pulled: 0, cancelled: true });
  });

  it("stops reading a chunked body as soon as it passes the limit", async () => {
    const { body, state } = stream(Array.from({ length: 100 }, () => bytes(4)));
    expect(await readWithin(body, 10)).toBeNull();
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(4);
  });

  it("with drainUpTo reads on (keeping nothing) before refusing, and cuts off past it", async () => {
    const small = stream([bytes(8), bytes(8), bytes(8)]);
    expect(await readWithin(small.body, 10, { drainUpTo: 100 })).toBeNull();
    expect(small.state).toEqual({ pulled: 4, cancelled: false });
    const huge = stream(Array.from({ length: 100 }, () => bytes(8)));
    expect(await readWithin(huge.body, 10, { drainUpTo: 40 })).toBeNull();
    expect(huge.state.cancelled).toBe(true);
    expect(huge.state.pulled).toBeLessThanOrEqual(6);
    const declared = stream([bytes(8)]);
    expect(await readWithin(declared.body, 10, { declaredLength: "41", drainUpTo: 40 })).toBeNull();
    expect(declared.state.pulled).toBe(0);
  });

  it("decodes UTF-8 split across chunks; invalid bytes become U+FFFD", async () => {
    const euro = new TextEncoder().encode("€"); // three bytes
    const { body } = stream([euro.slice(0, 1), euro.slice(1), new Uint8Array([0xff])]);
    expect(await readTextWithin(body, 10)).toBe("€\uFFFD");
  });
});
