import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/**
 * A write that lands while a list's first load is in flight: the load was sent before the write,
 * so it answers without it. After the write the list must read again. The server here is a list
 * and a gate per read: each read answers only when the test opens its gate, so the order of
 * events is the test's, never a timer's.
 */
function setup() {
  const rows = ["old key"];
  const gates: { open: () => void; seen: string[] }[] = [];
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000 } } });
  const observer = new QueryObserver(client, {
    queryKey: ["keys"],
    queryFn: ({ signal }) => {
      const seen = [...rows]; // what the database holds when the read is made
      return new Promise<string[]>((resolve, reject) => {
        gates.push({ open: () => resolve(seen), seen });
        signal.addEventListener("abort", () => reject(new Error("aborted")));
      });
    },
  });
  const unsubscribe = observer.subscribe(() => {});
  return { rows, gates, client, observer, unsubscribe };
}
const settle = () => new Promise((r) => setImmediate(r));

/** The read started after the write answers, and the list then shows the write. */
async function secondReadShowsTheWrite(
  { gates, observer, unsubscribe }: Pick<ReturnType<typeof setup>, "gates" | "observer" | "unsubscribe">,
  refreshed: Promise<unknown>,
) {
  expect(gates).toHaveLength(2);
  gates[1]!.open();
  await refreshed;
  expect(observer.getCurrentResult().data).toEqual(["old key", "new key"]);
  unsubscribe();
}

describe("refreshAfterWrite", () => {
  it("a write during the first load: the list reads again and shows the write", async () => {
    const { rows, gates, client, observer, unsubscribe } = setup();
    await settle();
    expect(gates).toHaveLength(1); // the first load, in flight
    rows.push("new key"); // the write commits
    const refreshed = refreshAfterWrite(client, { queryKey: ["keys"] });
    await settle();
    gates[0]!.open(); // the stale first load answers late
    await settle();
    await secondReadShowsTheWrite({ gates, observer, unsubscribe }, refreshed);
  });

  it("invalidateQueries alone keeps the stale first load (why the helper exists)", async () => {
    const { rows, gates, client, observer, unsubscribe } = setup();
    await settle();
    rows.push("new key");
    const invalidated = client.invalidateQueries({ queryKey: ["keys"] });
    await settle();
    gates[0]!.open();
    await invalidated;
    expect(gates).toHaveLength(1);
    expect(observer.getCurrentResult().data).toEqual(["old key"]);
    unsubscribe();
  });

  it("with data already shown: one fresh read, and no filter means every query", async () => {
    const { rows, gates, client, observer, unsubscribe } = setup();
    await settle();
    gates[0]!.open();
    await settle();
    expect(observer.getCurrentResult().data).toEqual(["old key"]);
    rows.push("new key");
    const refreshed = refreshAfterWrite(client);
    await settle();
    await secondReadShowsTheWrite({ gates, observer, unsubscribe }, refreshed);
  });
});
