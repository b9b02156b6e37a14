import { EventEmitter } from "node:events";
import pg from "pg";
import { databaseConfig } from "../config";

/**
 * Job changes as PostgreSQL pushes them: every transition statement ends with
 * pg_notify('ai_job_events', …), which is delivered only when its transaction commits, to every
 * listening app instance. One LISTEN connection per process feeds live pages (SSE) and the
 * workflow relay; it reconnects with backoff and reports gaps so consumers can re-read.
 */
import { CHANNEL, jobChangeSchema } from "../jobs/job-change";

export { CHANNEL, jobChangeSchema, type JobChange } from "../jobs/job-change";

/** Runtime key revocations, so every instance drops a cached key at once. */
export const KEY_CHANNEL = "runtime_key_events";

/** The longest wait between two attempts to LISTEN again. */
const MAX_RETRY_MS = 3_000;

export class JobFeed extends EventEmitter {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 500;
  private timer: NodeJS.Timeout | null = null;
  connected = false;

  constructor(private readonly url: string) {
    super();
    this.setMaxListeners(0);
  }

  start() {
    this.stopped = false;
    void this.connect();
    return this;
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => {});
  }

  private async connect() {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, connectionTimeoutMillis: 10_000 });
    this.client = client;
    client.on("notification", (msg) => {
      if (msg.channel === KEY_CHANNEL) return void this.emit("key-revoked", msg.payload ?? "");
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const parsed = jobChangeSchema.safeParse(safeJson(msg.payload));
      if (parsed.success) this.emit("change", parsed.data);
    });
    client.on("error", () => this.reconnect(client));
    client.on("end", () => this.reconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${KEY_CHANNEL}`);
      this.connected = true;
      this.retryMs = 500;
      this.emit("connected");
    } catch {
      this.reconnect(client);
    }
  }

  private reconnect(client: pg.Client) {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    if (this.connected) this.emit("disconnected");
    this.connected = false;
    this.emit("gap");
    client.end().catch(() => {});
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    // At most a few seconds apart: after a failover the new primary takes connections within
    // seconds, and every live page and long poll waits on this connection.
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const g = globalThis as unknown as { __jobFeed?: JobFeed };

/** The process's one feed, started on first use. */
export function getJobFeed(): JobFeed {
  if (!g.__jobFeed) {
    // LISTEN needs a session of its own: never through a transaction pooler.
    const url = databaseConfig.sessionUrl;
    if (!url) throw new Error("DATABASE_URL is not set");
    g.__jobFeed = new JobFeed(url).start();
  }
  return g.__jobFeed;
}

export async function stopJobFeed() {
  const feed = g.__jobFeed;
  g.__jobFeed = undefined;
  await feed?.stop();
}
