/**
 * The fence against a second primary, tried (docs/operations.md, "High availability"): the Patroni
 * cluster of scripts/lib/patroni-cluster.ts (deploy/patroni.yml, deploy/haproxy-postgres.cfg), a
 * probe writing through HAProxy's primary listener every 100 ms, and in each round the leader's
 * whole node (Patroni and PostgreSQL) SIGSTOPped, then its PostgreSQL alone, each resumed once
 * another node leads and has acknowledged ten writes; then etcd's quorum lost for 30 s. Prints,
 * per fault, the writes acknowledged, how many are missing afterwards, and the time from the
 * resume to a healthy cluster (no command typed).
 *
 *   npm run bench:fence                      # FENCE_ROUNDS=2, test timing, Patroni on etcd's v2 API
 *   FENCE_DCS=etcd3 npm run bench:fence      # the same on Patroni 3.0.2's etcd3 code
 *   FENCE_TIMING=production npm run bench:fence   # ttl 30, loop_wait 10, retry_timeout 10
 */
import pg from "pg";
import { startPatroniCluster, TEST_TIMING, type PatroniCluster } from "../lib/patroni-cluster";

const rounds = Number(process.env.FENCE_ROUNDS ?? 2);
const dcs = process.env.FENCE_DCS === "etcd3" ? "etcd3" : "etcd";
const timing = process.env.FENCE_TIMING === "production" ? { ttl: 30, loop_wait: 10, retry_timeout: 10 } : TEST_TIMING;
const log = (m: string) => console.log(`[fence ${new Date().toISOString().slice(11, 19)}] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const signal = (pids: number[], sig: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // ended meanwhile
    }
  }
};

const cluster = await startPatroniCluster({ log, dcs, timing, portBase: Number(process.env.HA_PORT_BASE ?? 31700) });
const url = cluster.primaryUrl("postgres");
{
  const c = new pg.Client(url);
  await c.connect();
  await c.query("CREATE TABLE IF NOT EXISTS fence_probe (n int PRIMARY KEY)");
  await c.end();
}

/** Acknowledged writes (number → the port of the node that took it), one connection each, given up after 5 s. */
const acked = new Map<number, number>();
const inFlight = new Set<Promise<void>>();
let next = 0;
let writing = true;
const write = async (n: number) => {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on("error", () => {});
  const giveUp = setTimeout(
    () => (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
    5000,
  );
  try {
    await c.connect();
    const { rows } = await c.query<{ port: number }>(
      "INSERT INTO fence_probe (n) VALUES ($1) RETURNING inet_server_port() AS port",
      [n],
    );
    acked.set(n, rows[0]!.port);
  } catch {
    // not acknowledged
  } finally {
    clearTimeout(giveUp);
    await c.end().catch(() => {});
  }
};
const writer = (async () => {
  while (writing) {
    const p = write(next++).finally(() => inFlight.delete(p));
    inFlight.add(p);
    await sleep(100);
  }
})();

async function until<T>(what: string, f: () => Promise<T | null>, ms = 600_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(200);
  }
}

/** Missing acknowledged writes, once every write in flight is answered. */
async function missing(upTo: number) {
  const pending = [...inFlight];
  await Promise.all(pending);
  const c = new pg.Client(url);
  await c.connect();
  const { rows } = await c.query<{ n: number }>("SELECT n FROM fence_probe");
  await c.end();
  const stored = new Set(rows.map((r) => r.n));
  return [...acked.keys()].filter((n) => n < upTo && !stored.has(n));
}

async function hang(c: PatroniCluster, wholeNode: boolean) {
  const { leader } = await c.healthy(600_000);
  const node = c.nodes.find((n) => n.name === leader)!;
  const from = next;
  const pids = [...(wholeNode ? [c.patroniPid(node)] : []), ...c.postgresPids(node)];
  signal(pids, "SIGSTOP");
  signal(c.postgresPids(node), "SIGSTOP");
  const frozeAt = Date.now();
  const successor = await until("another leader", async () => {
    const now = (await c.state()).leader;
    return now && now !== leader ? now : null;
  });
  const port = c.nodes.find((n) => n.name === successor)!.pgPort;
  const before = [...acked.values()].filter((p) => p === port).length;
  await until("ten writes on the new leader", async () =>
    [...acked.values()].filter((p) => p === port).length >= before + 10 ? true : null,
  );
  const promotedMs = Date.now() - frozeAt;
  signal(c.postgresPids(node), "SIGCONT");
  signal(pids, "SIGCONT");
  const resumedAt = Date.now();
  const healed = await c.healthy(600_000).then(
    () => `${((Date.now() - resumedAt) / 1000).toFixed(1)} s`,
    () => "not within 600 s",
  );
  const upTo = next;
  const lost = await missing(upTo);
  const during = [...acked.keys()].filter((n) => n >= from && n < upTo).length;
  log(
    `${wholeNode ? "whole node" : "PostgreSQL alone"} (${leader}) hung ${(promotedMs / 1000).toFixed(1)} s, ${successor} took over: ` +
      `${during} writes acknowledged, ${lost.length} missing; healthy ${healed} after the resume`,
  );
  return lost.length;
}

let lostInAll = 0;
try {
  for (let i = 0; i < rounds; i++) {
    lostInAll += await hang(cluster, true);
    lostInAll += await hang(cluster, false);
  }
  const { leader } = await cluster.healthy(600_000);
  const from = next;
  await cluster.stopEtcd("etcd2");
  await cluster.stopEtcd("etcd3");
  await sleep(30_000);
  const still = (await cluster.state()).leader;
  cluster.startEtcd("etcd2");
  cluster.startEtcd("etcd3");
  const backAt = Date.now();
  await cluster.healthy(600_000);
  const upTo = next;
  const lost = await missing(upTo);
  lostInAll += lost.length;
  const during = [...acked.keys()].filter((n) => n >= from && n < upTo).length;
  log(
    `etcd's quorum lost 30 s: ${still === leader ? `${leader} led throughout` : `leader ${leader} → ${still ?? "none"}`}, ` +
      `${during} writes acknowledged, ${lost.length} missing; healthy ${((Date.now() - backAt) / 1000).toFixed(1)} s after etcd came back`,
  );
} finally {
  writing = false;
  await writer;
  await Promise.all([...inFlight]);
  await cluster.stop();
}
log(`${acked.size} writes acknowledged in all, ${lostInAll} missing (Patroni on ${dcs}, ttl ${timing.ttl})`);
process.exit(lostInAll ? 1 : 0);
