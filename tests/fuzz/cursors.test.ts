import fc from "fast-check";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/trpc/root";
import { setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, type Learner } from "../helpers/factories";
import { trpcHttp } from "../helpers/trpc-route";

/**
 * Every cursor-taking procedure refuses a cursor whose date PostgreSQL cannot
 * read (year 0, year 10000, ±275760) or whose id it cannot store with 400 INVALID_REQUEST, never
 * a 500 (progress.history answered 500 to `0000-01-01T00:00:00.000Z|x`). The procedures are found
 * in the router itself, so a new one is fuzzed without being listed here.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

type Proc = { _def: { type: string; inputs: z.ZodType[] } };
function cursorProcedures(): { path: string; type: "query" | "mutation" }[] {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, Proc> } })._def.procedures;
  return Object.entries(procedures)
    .filter(([, p]) =>
      p._def.inputs.some((input) => {
        const schema = z.toJSONSchema(input, { unrepresentable: "any", io: "input" }) as {
          properties?: Record<string, unknown>;
        };
        return !!schema.properties && Object.hasOwn(schema.properties, "cursor");
      }),
    )
    .map(([path, p]) => ({ path, type: p._def.type === "mutation" ? "mutation" : "query" }));
}

const HOSTILE_POSITIONS = [
  "0000-01-01T00:00:00.000Z|x",
  "-000001-01-01T00:00:00.000Z|x",
  "+010000-01-01T00:00:00.000Z|x",
  "+275760-09-13T00:00:00.000Z|x",
  "-271821-04-20T00:00:00.000Z|x",
  "1969-12-31T23:59:59.999Z|x",
  "NaN|x",
  "|x",
  "2026-01-01T00:00:00.000Z|",
  "2026-01-01T00:00:00.000Z",
  "2026-01-01T00:00:00.000Z|a\u0000b",
  "2026-01-01T00:00:00.000Z|\ud800",
  "2026-01-01T00:00:00.000Z|a|b",
  "",
  "|",
  "toString",
  "__proto__|__proto__",
];

/** A position as each procedure may take it: plain (progress.history) or base64url (the explorer's opaque cursor). */
const encodings = (position: string) => [position, Buffer.from(position).toString("base64url")];

describe("cursor fuzzing over every cursor-taking procedure", () => {
  let admin: Learner;
  let cookie: string;
  const procs = cursorProcedures();

  beforeAll(async () => {
    admin = await createLearner({ role: "admin" });
    await setPassword(admin.user.id, "cursor-password-123");
    cookie = await signedInCookie(admin.user.email, "cursor-password-123");
    for (let i = 0; i < 3; i++) await createTestJob(admin);
  });

  it("finds the cursor-taking procedures in the router", () => {
    expect(procs.map((p) => p.path).sort()).toEqual(
      expect.arrayContaining(["admin.explorer.list", "progress.history"]),
    );
  });

  const expectRefusedOrAnswered = (res: Awaited<ReturnType<typeof trpcHttp>>, what: string) => {
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
    if (res.status !== 200) {
      expect(res.status, what).toBe(400);
      expect(res.body.error.data.appCode, what).toBe("INVALID_REQUEST");
    }
  };

  it.each(cursorProcedures().map((p) => [p.path, p] as const))(
    "%s: hostile cursors are 400, never 5xx",
    async (_path, proc) => {
      for (const position of HOSTILE_POSITIONS)
        for (const cursor of encodings(position)) {
          const res = await trpcHttp(proc.type, proc.path, { cursor }, { cookie });
          expectRefusedOrAnswered(res, `${proc.path} ${JSON.stringify(cursor)}`);
        }
      // The date a learner's page can send (year 0) is refused, not answered with rows.
      const yearZero = await trpcHttp(
        proc.type,
        proc.path,
        { cursor: encodings("0000-01-01T00:00:00.000Z|x")[proc.path === "progress.history" ? 0 : 1] },
        { cookie },
      );
      expect(yearZero.status).toBe(400);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc
              .tuple(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.string({ maxLength: 30 }))
              .map(([t, id]) => `${new Date(t).toISOString()}|${id}`),
            fc.string({ maxLength: 60, unit: "binary" }),
            fc.string({ maxLength: 60 }),
          ),
          fc.boolean(),
          async (position, base64) => {
            const cursor = encodings(position)[base64 ? 1 : 0]!;
            if (cursor.length > 200) return; // the schema's own max: 400 by zod, not this test's concern
            expectRefusedOrAnswered(
              await trpcHttp(proc.type, proc.path, { cursor }, { cookie }),
              `${proc.path} ${JSON.stringify(cursor)}`,
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
    120_000,
  );

  it("a real cursor still pages", async () => {
    const first = await trpcHttp("query", "progress.history", { limit: 1 }, { cookie });
    expect(first.status).toBe(200);
    const next = first.body.result.data.nextCursor as string;
    expect(next).toMatch(/\|/);
    const second = await trpcHttp("query", "progress.history", { limit: 1, cursor: next }, { cookie });
    expect(second.status).toBe(200);
    expect(second.body.result.data.items[0].id).not.toBe(first.body.result.data.items[0].id);
  });
});
