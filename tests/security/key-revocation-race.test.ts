import { beforeAll, describe, expect, it } from "vitest";
import { createRuntimeKey, revokeRuntimeKey, verifyRuntimeKey } from "@/server/runtime-keys";
import { getJobFeed, KEY_CHANNEL } from "@/server/events/job-feed";
import { getDb } from "@/server/db";
import { eventually } from "../helpers/eventually";
import { uid } from "../helpers/factories";

/**
 * A revoke is effective on the next request after it commits, even when a
 * request was filling the per-process key cache at the same moment. The cache is only used while
 * the revocation listener is connected, so the test waits for it first.
 */
const ROUNDS = 40;
const tick = () => new Promise((r) => setImmediate(r));

beforeAll(async () => {
  getJobFeed();
  await verifyRuntimeKey(`Bearer ${(await createRuntimeKey(uid("warm"))).key}`);
  await eventually("the revocation listener is connected", async () => getJobFeed().connected, 30_000);
});

async function outcome(bearer: string) {
  return verifyRuntimeKey(bearer).then(
    () => "accepted",
    (e: { code?: string }) => e.code,
  );
}

describe("revocation races the key cache", () => {
  it(`${ROUNDS} rounds: a cache fill racing a revoke never keeps the key usable`, async () => {
    const kept: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { id, key } = await createRuntimeKey(uid("race"));
      const bearer = `Bearer ${key}`;
      // Several fills in flight, started before, with and after the revoke.
      const fills = [outcome(bearer), outcome(bearer)];
      for (let i = 0; i < round % 3; i++) await tick();
      const revoke = revokeRuntimeKey(id);
      fills.push(outcome(bearer));
      await revoke;
      await Promise.all(fills);
      // The revoke has committed: the very next request must fail, and every one after it.
      const next = [await outcome(bearer), await outcome(bearer)];
      if (next.some((o) => o === "accepted")) kept.push(round);
      expect(next).toEqual(["UNAUTHORIZED", "UNAUTHORIZED"]);
    }
    expect(kept).toEqual([]);
  });

  it("a key cached before the revoke fails on the next request", async () => {
    const { id, key } = await createRuntimeKey(uid("cached"));
    const bearer = `Bearer ${key}`;
    expect(await outcome(bearer)).toBe("accepted");
    expect(await outcome(bearer)).toBe("accepted"); // served from the cache
    await revokeRuntimeKey(id);
    expect(await outcome(bearer)).toBe("UNAUTHORIZED");
  });

  it("a revoke committed by another instance (UPDATE + NOTIFY) drops the key here once its NOTIFY arrives, even mid-fill", async () => {
    for (let round = 0; round < 10; round++) {
      const { id, key } = await createRuntimeKey(uid("remote"));
      const bearer = `Bearer ${key}`;
      const arrived = new Promise<void>((resolve) => {
        const onRevoked = (revoked: string) => {
          if (revoked !== id) return;
          getJobFeed().off("key-revoked", onRevoked);
          resolve();
        };
        getJobFeed().on("key-revoked", onRevoked);
      });
      const fill = outcome(bearer);
      // What revokeRuntimeKey does on the other instance, as one statement.
      await getDb().$executeRaw`
        WITH r AS (UPDATE "RuntimeApiKey" SET "revokedAt" = now() WHERE id = ${id} RETURNING id)
        SELECT pg_notify(${KEY_CHANNEL}, id) FROM r`;
      await fill;
      await arrived;
      expect(await outcome(bearer)).toBe("UNAUTHORIZED");
    }
  });
});
