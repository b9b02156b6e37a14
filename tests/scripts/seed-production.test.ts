import { describe, expect, it } from "vitest";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";
import { getDb } from "@/server/db";
import { seed, SEED_REFUSED } from "@/prisma/seed";

/**
 * docs/contract.md#deployment-shapes: production seeds nothing. `npm run db:seed` (scripts/seed.ts) with NODE_ENV=production
 * exits 1 naming why and writes nothing; seed() itself refuses too, whoever calls it. (Before,
 * the refusal lived only in prisma/seed.ts's own main block, which db:seed does not run.)
 */
describe("db:seed in production", () => {
  it(
    "npm run db:seed refuses, exit 1, no demo account written",
    async () => {
      const users = await getDb().user.count();
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
      delete env.ALLOW_GENERATED_SECRETS;
      const out = await runScript("scripts/seed.ts", [], env);
      expect(out.status).toBe(1);
      expect(out.stderr).toContain(SEED_REFUSED);
      expect(await getDb().user.count()).toBe(users);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it("seed() refuses in production whoever calls it", async () => {
    const users = await getDb().user.count();
    const before = process.env.NODE_ENV;
    const allow = process.env.ALLOW_GENERATED_SECRETS;
    (process.env as Record<string, string | undefined>).NODE_ENV = "production";
    delete process.env.ALLOW_GENERATED_SECRETS;
    try {
      await expect(seed()).rejects.toThrow(SEED_REFUSED);
    } finally {
      (process.env as Record<string, string | undefined>).NODE_ENV = before;
      if (allow !== undefined) process.env.ALLOW_GENERATED_SECRETS = allow;
    }
    expect(await getDb().user.count()).toBe(users);
  });
});
