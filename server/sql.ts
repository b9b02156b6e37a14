import crypto from "node:crypto";
import pg from "pg";
import type { Prisma } from "./generated/prisma/client";
import { databaseConfig } from "./config";
import { getClaimPool, getDb, getPool, type DbOrTx } from "./db";

/**
 * The hot path's statements (every Runtime request runs one) straight on the pg pool under
 * Prisma, as named prepared statements: PostgreSQL plans each shape once per connection instead of
 * on every call (≈0.8 ms of server CPU for a transition), and the client skips Prisma's query
 * pipeline (≈0.3–0.5 ms per call). Same SQL, same values and the same row types as $queryRaw:
 * timestamps are UTC Dates, json is parsed, bigint is BigInt. Inside an interactive transaction
 * the statement goes through that transaction instead. `on: "claims"` (claim and poll) runs it on
 * the claim pool, whose connections use generic plans (server/db.ts getClaimPool). Behind a
 * transaction pooler (DATABASE_POOLER=transaction) the main pool's statements go unnamed.
 */
export function runSql<T>(db: DbOrTx, query: Prisma.Sql, on: "claims" | "main" = "main"): Promise<T[]> {
  if (db !== getDb()) return db.$queryRaw<T[]>(query);
  // The claim pool is always a session of its own; the main pool may be a transaction pooler's.
  if (on === "claims") return fastQuery<T>(query, getClaimPool(), true);
  return fastQuery<T>(query, getPool(), databaseConfig.namedStatements);
}

const names = new Map<string, string>();

function statementName(text: string) {
  let name = names.get(text);
  if (!name) {
    name = `ajr_${crypto.createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
    if (names.size > 1000) names.clear();
    names.set(text, name);
  }
  return name;
}

async function fastQuery<T>(query: Prisma.Sql, pool: pg.Pool, named: boolean): Promise<T[]> {
  const res = await pool.query({
    name: named ? statementName(query.text) : undefined,
    text: query.text,
    values: query.values.map(toPg),
    types,
  });
  return res.rows as T[];
}

/** Dates leave as ISO-8601 UTC text (the columns are timestamp without time zone, stored as UTC). */
function toPg(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

const TIMESTAMP = 1114;
const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP) return (s: string) => new Date(`${s.replace(" ", "T")}Z`);
    if (oid === INT8) return (s: string) => BigInt(s);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;
