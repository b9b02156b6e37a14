import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { hashKey } from "@/server/key-hash";
import { takeRuntimeCall } from "@/server/runtime-api/caps";
import { setting } from "@/server/config";
import { runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";

/** The key's id, as the door knows it once the bearer key is verified. */
async function keyIdOf(key: string) {
  return (await getDb().runtimeApiKey.findUniqueOrThrow({ where: { hash: hashKey(key) } })).id;
}

describe("per-key caps on the Runtime door (docs/contract.md#the-runtime-protocol)", () => {
  it("a key with RUNTIME_KEY_CONCURRENCY requests in flight is answered 429 with Retry-After; another key is not; a finished request frees its slot", async () => {
    const [key, other] = await Promise.all([runtimeKey(), runtimeKey()]);
    const keyId = await keyIdOf(key);
    // Hold every slot of the key as requests in flight would.
    const held = Array.from({ length: setting("RUNTIME_KEY_CONCURRENCY") }, () => takeRuntimeCall(keyId, 0));
    const rt = runtime(key, uid("rt"));
    const refused = await rt.poll({ limit: 1 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 1 } });
    expect(refused.headers["retry-after"]).toBe("1");
    expect((await runtime(other, uid("rt")).poll({ limit: 1 })).status).toBe(200);
    held.pop()!();
    expect((await rt.poll({ limit: 1 })).status).toBe(200);
    for (const release of held) release();
  });

  it("RUNTIME_KEY_RATE_LIMIT requests in one second, then 429 until the next second", () => {
    const keyId = uid("key");
    const second = 5_000_000;
    const rate = setting("RUNTIME_KEY_RATE_LIMIT");
    for (let i = 0; i < rate; i++) takeRuntimeCall(keyId, second)();
    expect(() => takeRuntimeCall(keyId, second + 999)).toThrow(`at most ${rate} requests a second`);
    expect(() => takeRuntimeCall(keyId, second + 1000)()).not.toThrow();
  });
});
