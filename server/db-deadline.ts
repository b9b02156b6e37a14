import pg from "pg";
import { setting } from "./config";

/**
 * A commit the database did not confirm in time. It may have happened or not: with synchronous
 * replication a primary that lost its standby holds the commit (PostgreSQL's statement_timeout
 * does not end that wait), and a connection cut during a commit says nothing about it. Doors
 * answer 503 OUTCOME_UNKNOWN with Retry-After (server/errors.ts): the same request with the same
 * idempotency key is safe to repeat, and finds the first one's work if it was committed.
 */
export class CommitOutcomeUnknown extends Error {
  readonly code = "AJR_COMMIT_OUTCOME_UNKNOWN";
  constructor(reason: string) {
    super(`commit outcome unknown: ${reason}`);
    this.name = "CommitOutcomeUnknown";
  }
}

/** A query config may carry its own deadline in ms (readiness's write probe). */
type WithDeadline = { text?: string; deadlineMs?: number };
type Callback = (err: Error | null, res?: unknown) => void;

const COMMIT = /^\s*(COMMIT|END)\b/i;
const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const ROLLBACK = /^\s*ROLLBACK\s*;?\s*$/i;

/**
 * The app's PostgreSQL connection (the pools' `Client`): a statement that may commit gets a
 * deadline the app owns. A COMMIT waits at most DB_COMMIT_TIMEOUT_MS, a statement outside a
 * transaction (which commits by itself) DB_STATEMENT_TIMEOUT_MS plus that; past it the
 * connection is closed — never cancelled: a cancelled wait for the synchronous standby returns
 * COMMIT with only a warning, as if it had been replicated — so the pool gets its slot back at
 * once and the caller a CommitOutcomeUnknown. A connection lost during such a statement is one
 * too. Statements inside a transaction keep PostgreSQL's statement_timeout.
 */
export class DeadlineClient extends pg.Client {
  private inTransaction = false;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection closed here errors its query; the pool's own listener is off while it is lent.
    this.on("error", () => {});
  }

  // pg's overloads (promise, callback, submittable): the callback and promise forms get the deadline.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const first = args[0] as string | WithDeadline | { submit?: unknown } | undefined;
    if (first && typeof first === "object" && "submit" in first && typeof first.submit === "function")
      return super.query(...(args as Parameters<pg.Client["query"]>));
    const text = typeof first === "string" ? first : ((first as WithDeadline | undefined)?.text ?? "");
    const own = typeof first === "object" ? (first as WithDeadline).deadlineMs : undefined;
    const commits = COMMIT.test(text) || (!this.inTransaction && !BEGIN.test(text) && !ROLLBACK.test(text));
    if (BEGIN.test(text)) this.inTransaction = true;
    else if (COMMIT.test(text) || ROLLBACK.test(text)) this.inTransaction = false;
    const deadline = own ?? (commits ? commitDeadlineMs(COMMIT.test(text)) : 0);
    if (!commits && own === undefined) return super.query(...(args as Parameters<pg.Client["query"]>));

    let expired = false;
    const timer =
      deadline > 0
        ? setTimeout(() => {
            expired = true;
            (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
          }, deadline)
        : null;
    timer?.unref?.();
    const settle = (err: Error | null): Error | null => {
      if (timer) clearTimeout(timer);
      if (!err) return null;
      if (expired) return new CommitOutcomeUnknown(`no answer within ${deadline} ms`);
      if (commits && connectionLost(err)) return new CommitOutcomeUnknown(err.message);
      return err;
    };
    const cbAt = args.findIndex((a) => typeof a === "function");
    if (cbAt >= 0) {
      const cb = args[cbAt] as Callback;
      args[cbAt] = (err: Error | null, res?: unknown) => cb(settle(err), res);
      return super.query(...(args as Parameters<pg.Client["query"]>));
    }
    return (super.query(...(args as Parameters<pg.Client["query"]>)) as unknown as Promise<unknown>).then(
      (res) => {
        settle(null);
        return res;
      },
      (err: Error) => {
        throw settle(err);
      },
    );
  }
}

function commitDeadlineMs(explicitCommit: boolean): number {
  const commit = setting("DB_COMMIT_TIMEOUT_MS");
  if (commit <= 0) return 0;
  return explicitCommit ? commit : setting("DB_STATEMENT_TIMEOUT_MS") + commit;
}

/** The connection itself failed (not the statement): the server did not say how the commit ended. */
function connectionLost(err: Error): boolean {
  const code = (err as { code?: string }).code ?? "";
  return (
    /^(57P01|57P02|57P03|08\w\w)$/.test(code) ||
    /ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|server closed the connection|terminating connection/i.test(
      err.message,
    )
  );
}
