import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlineClient, CommitOutcomeUnknown } from "@/server/db-deadline";
import { isDatabaseUnavailable, isOutcomeUnknown, unavailable } from "@/server/errors";
import { errorAnswer } from "@/server/auth/route-guard";
import { errorAnswer as runtimeAnswer } from "@/server/runtime-api/dispatch";
import { eventually } from "../helpers/eventually";

/**
 * Commits under the app's deadline (server/db-deadline.ts) and the database's "cannot serve now"
 * answers, on the real PostgreSQL. A COMMIT is held by a real control — a deferred unique check
 * that waits for another transaction's row lock, as a commit waits for a synchronous standby —
 * and the client gives up at DB_COMMIT_TIMEOUT_MS: its connection closed (never cancelled), the
 * pool's slot free again, and the caller told the outcome is unknown (503 OUTCOME_UNKNOWN).
 */
const url = () => process.env.DATABASE_URL!;
const table = `deadline_probe_${process.pid}`;
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url() });
  await admin.connect();
  await admin.query(`CREATE TABLE ${table} (k int, CONSTRAINT ${table}_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)`);
});

afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.query(`DROP ROLE IF EXISTS ${table}_full`);
  await admin.end();
});

describe("a commit past the app's deadline", () => {
  it("closes the connection, frees the pool's slot and answers 503 OUTCOME_UNKNOWN with Retry-After; the commit may still land", async () => {
    process.env.DB_COMMIT_TIMEOUT_MS = "300";
    const holder = new pg.Client({ connectionString: url() });
    await holder.connect();
    const pool = new pg.Pool({ connectionString: url(), max: 1, Client: DeadlineClient });
    try {
      // The holder's row is uncommitted: the pooled transaction's COMMIT checks the deferred
      // unique key and waits for the holder, however long (statement_timeout off for it).
      await holder.query("BEGIN");
      await holder.query(`INSERT INTO ${table} (k) VALUES (1)`);
      const c = await pool.connect();
      await c.query("SET statement_timeout = 0");
      await c.query("BEGIN");
      await c.query(`INSERT INTO ${table} (k) VALUES (1)`);
      const e = await c.query("COMMIT").then(
        () => null,
        (x: unknown) => x,
      );
      c.release(e as Error);
      expect(e).toBeInstanceOf(CommitOutcomeUnknown);
      expect(isOutcomeUnknown(e)).toBe(true);
      expect(isDatabaseUnavailable(e)).toBe(true);
      expect(unavailable(e).code).toBe("OUTCOME_UNKNOWN");
      const answer = errorAnswer(e);
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("5");
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("OUTCOME_UNKNOWN");
      expect(runtimeAnswer(e)).toMatchObject({ status: 503, body: { error: { code: "OUTCOME_UNKNOWN" } } });
      // The slot is free at once: the next statement gets a connection while the old commit still waits.
      expect((await pool.query<{ v: number }>("SELECT 1 AS v")).rows[0]!.v).toBe(1);
      const waiting = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'COMMIT' AND wait_event_type = 'Lock'",
      );
      expect(waiting.rows[0].n).toBeGreaterThan(0);
      // "Unknown" is the truth: the holder gives way and the abandoned commit lands.
      await holder.query("ROLLBACK");
      await eventually(
        "the abandoned commit landed",
        async () => (await admin.query(`SELECT 1 FROM ${table} WHERE k = 1`)).rowCount === 1 || null,
      );
    } finally {
      delete process.env.DB_COMMIT_TIMEOUT_MS;
      await holder.end();
      await pool.end();
    }
  });

  it("leaves a commit that is confirmed in time, and a statement inside a transaction, alone", async () => {
    process.env.DB_COMMIT_TIMEOUT_MS = "5000";
    const pool = new pg.Pool({ connectionString: url(), max: 1, Client: DeadlineClient });
    try {
      const c = await pool.connect();
      await c.query("BEGIN");
      await c.query(`INSERT INTO ${table} (k) VALUES (2)`);
      await c.query("COMMIT");
      c.release();
      expect((await admin.query(`SELECT 1 FROM ${table} WHERE k = 2`)).rowCount).toBe(1);
    } finally {
      delete process.env.DB_COMMIT_TIMEOUT_MS;
      await pool.end();
    }
  });
});

describe("the database's 'cannot serve now' answers", () => {
  it("53300 (no connection slot left) answers 503 UNAVAILABLE with Retry-After, not 500", async () => {
    // A login with no connection allowed: PostgreSQL refuses it with 53300, as it does past max_connections.
    await admin.query(`CREATE ROLE ${table}_full LOGIN PASSWORD 'deadline-probe' CONNECTION LIMIT 0`);
    const u = new URL(url());
    u.username = `${table}_full`;
    u.password = "deadline-probe";
    const refused = new pg.Client({ connectionString: u.toString() });
    const e = await refused.connect().then(
      () => null,
      (x: unknown) => x,
    );
    await refused.end().catch(() => {});
    expect((e as { code?: string }).code).toBe("53300");
    expect(isDatabaseUnavailable(e)).toBe(true);
    const answer = errorAnswer(e);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("5");
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("UNAVAILABLE");
    expect(isDatabaseUnavailable(new Error("sorry, too many clients already"))).toBe(true);
  });
});
