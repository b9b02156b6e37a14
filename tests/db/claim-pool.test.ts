import { afterAll, describe, expect, it } from "vitest";
import { getClaimPool } from "@/server/db";

/**
 * The claim pool's connections plan generically (server/db.ts getClaimPool). The setting is made by
 * the pool's awaited onConnect hook; sent from the "connect" event, it ran beside the caller's first
 * statement and pg warned once per process: "client.query() when the client is already executing a
 * query" (an error from pg 9 on).
 */
describe("claim pool connections", () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on("warning", onWarning);
  afterAll(() => void process.off("warning", onWarning));

  it("plan generically from their first statement, and no statement runs beside the setting", async () => {
    const pool = getClaimPool();
    // Several at once: each of them on a connection the pool opens for it.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => pool.query<{ plan_cache_mode: string }>("SHOW plan_cache_mode")),
    );
    expect(answers.map((a) => a.rows[0]!.plan_cache_mode)).toEqual(Array(4).fill("force_generic_plan"));
    expect(pool.totalCount).toBeGreaterThanOrEqual(2);
    // Warnings are emitted on a later tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((m) => /already executing a query/.test(m))).toEqual([]);
  });
});
