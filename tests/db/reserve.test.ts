import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, getPool, getClaimPool } from "@/server/db";
import { getReservePool } from "@/server/db-reserve";
import { GET as ready } from "@/app/api/health/ready/route";
import { setPassword, signedInCookie, signIn } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { trpcHttp } from "../helpers/trpc-route";

/**
 * The app's connections run under statement and idle-in-transaction limits, and sign-in,
 * sessions and readiness keep a pool of their own: a main pool held to the last connection by
 * someone's load leaves them up, and a session lookup that cannot get a connection is tRPC's
 * 503 with Retry-After, not a 500.
 */
await closeDb();
process.env.DB_POOL_MAX = "3";
process.env.DB_RESERVE_POOL_MAX = "2";
process.env.DB_CONNECT_TIMEOUT_MS = "500";

/** Takes every connection of `pool`, until the answer is called. */
async function holdAll(pool: pg.Pool, n: number) {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()));
  return () => clients.forEach((c) => c.release());
}

afterAll(() => closeDb());

async function learnerWithPassword() {
  const learner = await createLearner();
  const password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
  return { ...learner, password };
}

describe("connection limits and the reserve pool", () => {
  it("every app connection has a statement timeout and an idle-in-transaction timeout", async () => {
    for (const pool of [getPool(), getClaimPool(), getReservePool()]) {
      const client = await pool.connect();
      try {
        expect((await client.query("SHOW statement_timeout")).rows[0].statement_timeout).toBe("1min");
        expect(
          (await client.query("SHOW idle_in_transaction_session_timeout")).rows[0].idle_in_transaction_session_timeout,
        ).toBe("30s");
      } finally {
        client.release();
      }
    }
  });

  it("with the main pool held to its last connection, sign-in, sessions and readiness still answer; a procedure is 503 with Retry-After", async () => {
    const me = await learnerWithPassword();
    const cookie = await signedInCookie(me.user.email, me.password);
    const release = await holdAll(getPool(), 3);
    try {
      expect((await signIn(me.user.email, me.password)).status).toBe(200);
      expect((await ready()).status).toBe(200);
      const busy = await trpcHttp("query", "jobs.list", {}, { cookie });
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      release();
    }
    expect((await trpcHttp("query", "jobs.list", {}, { cookie })).status).toBe(200);
  });

  it("a session lookup that cannot get a connection is 503 with Retry-After, not a 500", async () => {
    const me = await learnerWithPassword();
    const cookie = await signedInCookie(me.user.email, me.password);
    const release = await holdAll(getReservePool(), 2);
    try {
      const res = await trpcHttp("query", "jobs.list", {}, { cookie });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(res.body.error.data.appCode).toBe("UNAVAILABLE");
    } finally {
      release();
    }
  });
});
