import { afterEach, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { getDb } from "@/server/db";
import { runSql } from "@/server/sql";
import { claimJobs } from "@/server/jobs/lease";

/**
 * server/sql.ts runs the hot path's statements on the pg pool as named prepared statements. Its
 * rows must be exactly what $queryRaw gives for the same SQL — in any process time zone, since the
 * timestamp columns hold UTC without a zone.
 */
const statement = (at: Date) => Prisma.sql`
  SELECT ${at}::timestamp(3) AS at, (${at}::timestamp(3) + interval '1 hour') AS later, '{"a":[1,{"b":null}]}'::jsonb AS doc,
    42::int AS n, 9007199254740993::bigint AS big, true AS yes, NULL::text AS nothing, ${"ünï'cödé"}::text AS s, 1.5::float8 AS f`;

const originalTz = process.env.TZ;
afterEach(() => {
  process.env.TZ = originalTz;
});

describe("runSql", () => {
  for (const tz of ["UTC", "America/New_York", "Asia/Shanghai"]) {
    it(`returns the same rows as $queryRaw with TZ=${tz}`, async () => {
      process.env.TZ = tz;
      const at = new Date("2026-03-08T06:30:15.123Z"); // a daylight-saving change day in New York
      const fast = await runSql<Record<string, unknown>>(getDb(), statement(at));
      const prisma = await getDb().$queryRaw<Record<string, unknown>[]>(statement(at));
      expect(fast).toEqual(prisma);
      expect((fast[0]!.at as Date).toISOString()).toBe(at.toISOString());
      expect((fast[0]!.later as Date).toISOString()).toBe("2026-03-08T07:30:15.123Z");
      expect(fast[0]!.big).toBe(9007199254740993n);
    });
  }

  it("stores a Date as the same UTC instant that Prisma stores", async () => {
    process.env.TZ = "Asia/Shanghai";
    const at = new Date("2026-11-30T23:59:59.999Z");
    const [fast] = await runSql<{ text: string }>(getDb(), Prisma.sql`SELECT ${at}::timestamp(3)::text AS text`);
    const [prisma] = await getDb().$queryRaw<{ text: string }[]>`SELECT ${at}::timestamp(3)::text AS text`;
    expect(fast!.text).toBe("2026-11-30 23:59:59.999");
    expect(prisma!.text).toBe(fast!.text);
  });

  it("goes through an interactive transaction when given one, and rolls back with it", async () => {
    const before = await getDb().runtimeApiKey.count();
    await expect(
      getDb().$transaction(async (tx) => {
        await runSql(
          tx,
          Prisma.sql`INSERT INTO "RuntimeApiKey" (id, name, hash, prefix, "createdAt") VALUES ('sqltest', 'x', 'h-sqltest', 'p', now())`,
        );
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await getDb().runtimeApiKey.count()).toBe(before);
  });

  it("runs claims on the claim pool with generic plans from the first call, and the rest in PostgreSQL's default mode", async () => {
    const mode = async (on: "claims" | "main") =>
      (await runSql<{ m: string }>(getDb(), Prisma.sql`SELECT current_setting('plan_cache_mode') AS m`, on))[0]!.m;
    expect(await mode("claims")).toBe("force_generic_plan");
    expect(await mode("main")).toBe("auto");
    await claimJobs({ runtimeInstanceId: "sql-test", keyId: null, capabilities: ["quiz_generation"], limit: 1 });
    // The pool hands back its most recently used connection: the one that just claimed.
    const claims = await runSql<{ generic: number; custom: number }>(
      getDb(),
      Prisma.sql`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
        WHERE statement LIKE '%FOR UPDATE OF j SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'`,
      "claims",
    );
    expect(claims).toEqual([{ generic: 1, custom: 0 }]);
  });
});
