import type pg from "pg";
import { setting } from "./config";

/**
 * The limits every app connection runs under (docs/operations.md): a statement running longer
 * than DB_STATEMENT_TIMEOUT_MS is cancelled, and a transaction left idle (its holder waiting on
 * something else) longer than DB_IDLE_IN_TRANSACTION_TIMEOUT_MS loses its connection, so no
 * request or client can keep a connection and its locks for long. Set on each new connection
 * before the pool hands it out (0 leaves PostgreSQL's own setting, off by default).
 */
export function sessionLimitsSql(): string {
  const statement = setting("DB_STATEMENT_TIMEOUT_MS");
  const idle = setting("DB_IDLE_IN_TRANSACTION_TIMEOUT_MS");
  return [
    ...(statement > 0 ? [`SET statement_timeout = ${Math.floor(statement)}`] : []),
    ...(idle > 0 ? [`SET idle_in_transaction_session_timeout = ${Math.floor(idle)}`] : []),
  ].join("; ");
}

/** A pool's `onConnect`: the session limits above, awaited before the connection is handed out. */
export async function applySessionLimits(client: pg.ClientBase) {
  const sql = sessionLimitsSql();
  if (sql) await client.query(sql);
}
