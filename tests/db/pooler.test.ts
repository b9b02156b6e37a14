import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { configProblems } from "@/server/config";
import { closeDb, getClaimPool, getDb, getPool } from "@/server/db";
import { databaseTopologyProblems } from "@/server/db-topology";
import { getJobFeed, KEY_CHANNEL, stopJobFeed } from "@/server/events/job-feed";
import { runSql } from "@/server/sql";
import { anyFreePort, startPgBouncer, type PgBouncer } from "@/scripts/lib/pgbouncer";

/**
 * The app behind PgBouncer 1.18 in transaction mode (deploy/pgbouncer.ini): ordinary statements
 * through the pooler, what needs a session (LISTEN, the claim pool's setting) on DIRECT_DATABASE_URL,
 * and a configuration that cannot work refused by name.
 */
const direct = process.env.DATABASE_URL!;
let bouncer: PgBouncer;
const saved = { ...process.env };

beforeAll(async () => {
  // Two server connections at most: a held transaction then forces the next one onto the other.
  bouncer = await startPgBouncer({ databaseUrl: direct, poolSize: 2 });
});
afterAll(async () => {
  await stopJobFeed();
  await closeDb();
  process.env = saved;
  await bouncer.stop();
});

async function behindPooler() {
  await stopJobFeed();
  await closeDb();
  Object.assign(process.env, {
    DATABASE_URL: bouncer.url,
    DIRECT_DATABASE_URL: direct,
    DATABASE_POOLER: "transaction",
  });
}

/** A transaction held open on the pooler's idle server connection, so the next statement lands on another one. */
async function holdServerConnection() {
  const holder = new pg.Client({ connectionString: bouncer.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT 1");
  return async () => {
    await holder.query("COMMIT");
    await holder.end();
  };
}

describe("behind a transaction pooler (DATABASE_POOLER=transaction)", () => {
  it("runs the hot path's statements when consecutive calls land on different server connections", async () => {
    await behindPooler();
    const statement = Prisma.sql`SELECT ${7}::int AS n, pg_backend_pid() AS pid`;
    const [first] = await runSql<{ n: number; pid: number }>(getDb(), statement);
    const release = await holdServerConnection();
    try {
      // A named statement prepared on the first server connection does not exist on the second.
      const [second] = await runSql<{ n: number; pid: number }>(getDb(), statement);
      expect(second!.n).toBe(7);
      expect(second!.pid).not.toBe(first!.pid);
      // Prisma's own queries and interactive transactions go through the pooler too.
      const [viaPrisma] = await getDb().$queryRaw<{ n: number }[]>`SELECT ${8}::int AS n`;
      expect(viaPrisma!.n).toBe(8);
      const inTx = await getDb().$transaction(async (tx) => tx.$queryRaw<{ n: number }[]>`SELECT ${9}::int AS n`);
      expect(inTx[0]!.n).toBe(9);
    } finally {
      await release();
    }
  });

  it("keeps the claim pool's session setting and the LISTEN feed on the direct session", async () => {
    await behindPooler();
    const claim = await getClaimPool().connect();
    try {
      const { rows } = await claim.query<{ mode: string; pid: number }>(
        "SELECT current_setting('plan_cache_mode') AS mode, pg_backend_pid() AS pid",
      );
      expect(rows[0]!.mode).toBe("force_generic_plan");
      // The process PostgreSQL announced is the one that answers: no pooler in between.
      expect(rows[0]!.pid).toBe((claim as unknown as { processID: number }).processID);
    } finally {
      claim.release();
    }
    const main = await getPool().connect();
    try {
      const { rows } = await main.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      expect(rows[0]!.pid).not.toBe((main as unknown as { processID: number }).processID);
    } finally {
      main.release();
    }
    // A NOTIFY committed through the pooler reaches the feed's LISTEN on the direct session.
    const feed = getJobFeed();
    await new Promise<void>((resolve) => (feed.connected ? resolve() : feed.once("connected", () => resolve())));
    const heard = new Promise<string>((resolve) => feed.once("key-revoked", resolve));
    await getPool().query("SELECT pg_notify($1, $2)", [KEY_CHANNEL, "probe-key"]);
    expect(await heard).toBe("probe-key");
  });
});

describe("a configuration that cannot work is refused by name", () => {
  it("refuses a transaction pooler without a direct session URL", () => {
    const base = { DATABASE_URL: "postgresql://u:p@pooler:6432/db", DATABASE_POOLER: "transaction" };
    const named = (env: Record<string, string>) =>
      configProblems(env).filter((p) => p.startsWith("DIRECT_DATABASE_URL"));
    expect(named(base)).toHaveLength(1);
    expect(named(base)[0]).toMatch(/LISTEN/);
    expect(named({ ...base, DIRECT_DATABASE_URL: base.DATABASE_URL })).toHaveLength(1);
    expect(named({ ...base, DIRECT_DATABASE_URL: "postgresql://u:p@db:5432/db" })).toEqual([]);
    expect(configProblems({ ...base, DATABASE_POOLER: "statement" }).join("\n")).toMatch(/^DATABASE_POOLER: /m);
  });

  it("finds a pooler behind a URL that was not declared as one", async () => {
    // DATABASE_URL on the pooler, undeclared: LISTEN would go through it.
    expect(await databaseTopologyProblems({ DATABASE_URL: bouncer.url })).toEqual([
      expect.stringMatching(/^DATABASE_URL: reaches a connection pooler/),
    ]);
    // A "direct" URL that is the pooler's.
    expect(
      await databaseTopologyProblems({
        DATABASE_URL: bouncer.url,
        DATABASE_POOLER: "transaction",
        DIRECT_DATABASE_URL: bouncer.url,
      }),
    ).toEqual([expect.stringMatching(/^DIRECT_DATABASE_URL: reaches a connection pooler/)]);
    // The settings as they should be, and PostgreSQL itself with none.
    expect(
      await databaseTopologyProblems({
        DATABASE_URL: bouncer.url,
        DATABASE_POOLER: "transaction",
        DIRECT_DATABASE_URL: direct,
      }),
    ).toEqual([]);
    expect(await databaseTopologyProblems({ DATABASE_URL: direct })).toEqual([]);
    // Nothing answering is readiness's business, not a refusal.
    const closed = new URL(direct);
    closed.port = String(await anyFreePort());
    expect(await databaseTopologyProblems({ DATABASE_URL: closed.toString() })).toEqual([]);
  });
});
