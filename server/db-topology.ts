import pg from "pg";
import { setting } from "./config";

type Env = Record<string, string | undefined>;

/**
 * Whether `url` reaches PostgreSQL itself: the server process that answers a query is the one the
 * connection announced at start-up (BackendKeyData). A pooler such as PgBouncer announces a key of
 * its own and hands the statements to one of its server connections, so the two differ. null when
 * nothing answers (then readiness says so; a start is not refused for it).
 */
export async function reachesPostgresDirectly(url: string): Promise<boolean | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    return rows[0]!.pid === (client as unknown as { processID: number }).processID;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The start's check of where the database URLs lead (server/startup.ts refuses to start on any):
 * a session needed for LISTEN, advisory locks and session settings must not land on a pooler that
 * was not declared, or live updates and long-poll wake-ups would silently stop.
 */
export async function databaseTopologyProblems(env?: Env): Promise<string[]> {
  const url = setting("DATABASE_URL", env);
  const direct = setting("DIRECT_DATABASE_URL", env);
  const pooler = setting("DATABASE_POOLER", env);
  const [urlDirect, directDirect] = await Promise.all([
    url && pooler === "none" ? reachesPostgresDirectly(url) : null,
    direct ? reachesPostgresDirectly(direct) : null,
  ]);
  const problems: string[] = [];
  if (urlDirect === false)
    problems.push(
      "DATABASE_URL: reaches a connection pooler, not PostgreSQL, while DATABASE_POOLER is none — declare it (DATABASE_POOLER=transaction or session) and, for a transaction pooler, set DIRECT_DATABASE_URL to PostgreSQL itself",
    );
  if (directDirect === false)
    problems.push(
      "DIRECT_DATABASE_URL: reaches a connection pooler, not PostgreSQL — LISTEN/NOTIFY, advisory locks and session settings need a direct session",
    );
  return problems;
}
