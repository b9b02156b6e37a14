import { spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { exited, signalQuietly as kill, startGroup, stopGroup } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PATRONI = process.env.PATRONI_PATH ?? "/usr/bin/patroni";
const PATRONICTL = process.env.PATRONICTL_PATH ?? "/usr/bin/patronictl";
const ETCD = process.env.ETCD_PATH ?? "/usr/bin/etcd";
const HAPROXY = process.env.HAPROXY_PATH ?? "/usr/sbin/haproxy";

/** Patroni's timing in tests: a lost leader is replaced within seconds (production values: deploy/patroni.yml). */
export const TEST_TIMING = { ttl: 10, loop_wait: 1, retry_timeout: 4 };

export type PatroniNode = { name: string; pgPort: number; restPort: number; dataDir: string };

export type PatroniCluster = {
  nodes: PatroniNode[];
  /** A database URL through HAProxy's `primary` listener (the leader). */
  primaryUrl(database: string): string;
  /** A database URL through HAProxy's `replica` listener (a running standby). */
  replicaUrl(database: string): string;
  /** A database URL straight to one node's PostgreSQL (no HAProxy). */
  nodeUrl(node: PatroniNode, database: string): string;
  /** The cluster as Patroni's REST API reports it: the leader's name and the synchronous standby's. */
  state(): Promise<{ leader?: string; sync?: string; members: { name: string; role: string; state: string }[] }>;
  /** Resolves once there is a leader, a streaming synchronous standby and every other node streaming (after a fault: the old node rejoined). */
  healthy(timeoutMs?: number): Promise<{ leader: string; sync: string }>;
  /** The postmaster's pid of a node (from postmaster.pid), or null when PostgreSQL is not running there. */
  postmasterPid(node: PatroniNode): number | null;
  /** The pids of a node's PostgreSQL: the postmaster and every process it started. */
  postgresPids(node: PatroniNode): number[];
  /** The pid of a node's Patroni. */
  patroniPid(node: PatroniNode): number;
  /** Kills a node's Patroni (SIGKILL, stopped or not) and starts a new one on the same configuration. */
  restartPatroni(node: PatroniNode): Promise<void>;
  /** Patroni's synchronous-replication key in etcd: the leader it was written by and its synchronous standby. */
  syncKey(): Promise<{ leader?: string; sync_standby?: string | null } | null>;
  /** Stops one etcd member (SIGKILL, as a lost machine) or starts it again on its data. */
  stopEtcd(name: string): Promise<void>;
  startEtcd(name: string): void;
  patronictl(args: string[]): string;
  /** The last lines each process wrote (etcd1…3, pg1…3, haproxy). */
  logs(): Map<string, string>;
  stop(): Promise<void>;
};

function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

function pgBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const versions = fs.existsSync("/usr/lib/postgresql")
    ? fs.readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a))
    : [];
  const dir = versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((d) => fs.existsSync(path.join(d, "postgres")));
  if (!dir) throw new Error("no PostgreSQL under /usr/lib/postgresql: install Debian's postgresql (or set PG_BIN_DIR)");
  return dir;
}

/**
 * A highly available PostgreSQL on this machine: a three-member etcd, three Patroni nodes of
 * Debian's PostgreSQL (deploy/patroni.yml, strict synchronous mode) and HAProxy (deploy/haproxy-postgres.cfg) routing by
 * Patroni's REST checks. Ports are `portBase` + 0…19 (HA_PORT_BASE, default 31600: below Linux's ephemeral ports, so no outgoing connection holds one). As root,
 * Patroni and PostgreSQL run as the postgres user. Resolves once a leader and a synchronous
 * standby are up.
 */
export async function startPatroniCluster(
  opts: {
    portBase?: number;
    timing?: typeof TEST_TIMING;
    log?: (m: string) => void;
    /** Patroni's etcd API: v2 as shipped, or `etcd3` to compare (scripts/bench/fence.ts). */
    dcs?: "etcd" | "etcd3";
  } = {},
): Promise<PatroniCluster> {
  const base = opts.portBase ?? Number(process.env.HA_PORT_BASE ?? 31600);
  const timing = opts.timing ?? TEST_TIMING;
  const log = opts.log ?? (() => {});
  // A cluster left by a run that died would answer in this one's place: refuse rather than share.
  const ports = [0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15].map((i) => base + i);
  const taken = (await Promise.all(ports.map(async (p) => ((await portFree(p)) ? null : p)))).filter(Boolean);
  if (taken.length)
    throw new Error(
      `ports ${taken.join(", ")} are in use (a cluster left by an earlier run?): stop it, or set HA_PORT_BASE`,
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-patroni-"));
  fs.chmodSync(dir, 0o755);
  const user = postgresUser();
  const own = (p: string) => user.uid !== undefined && fs.chownSync(p, user.uid, user.gid!);
  own(dir);
  const children: ChildProcess[] = [];
  const logs = new Map<string, string>();
  const spawnLogged = (name: string, cmd: string, args: string[], asPostgres = false) => {
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      LANG: "C.UTF-8",
      // PATRONI_LOG_LEVEL=INFO shows Patroni's decisions (the file's level is WARNING).
      PATRONI_LOG_LEVEL: process.env.PATRONI_LOG_LEVEL,
    };
    const child = startGroup(cmd, args, env, name, {
      cwd: dir,
      ownEnv: true,
      ...(asPostgres ? user : {}),
      output: (text) => logs.set(name, ((logs.get(name) ?? "") + text).slice(-20_000)),
    });
    children.push(child);
    return child;
  };
  const killAll = () => {
    for (const c of children) if (c.pid && c.exitCode === null) kill(-c.pid, "SIGKILL");
    for (const n of nodes) for (const pid of postgresPids(n)) kill(pid, "SIGKILL");
  };
  process.on("exit", killAll);

  // etcd: three members (quorum two), each with its data in the cluster's folder; Patroni speaks
  // its v2 API (deploy/patroni.yml says why).
  const etcds = [0, 1, 2].map((i) => ({ name: `etcd${i + 1}`, client: base + i, peer: base + 7 + i }));
  const etcdCluster = etcds.map((e) => `${e.name}=http://127.0.0.1:${e.peer}`).join(",");
  const startEtcd = (e: (typeof etcds)[number] & { state?: "new" | "existing" }) =>
    spawnLogged(e.name, ETCD, [
      "--name",
      e.name,
      "--data-dir",
      path.join(dir, e.name),
      "--listen-client-urls",
      `http://127.0.0.1:${e.client}`,
      "--advertise-client-urls",
      `http://127.0.0.1:${e.client}`,
      "--listen-peer-urls",
      `http://127.0.0.1:${e.peer}`,
      "--initial-advertise-peer-urls",
      `http://127.0.0.1:${e.peer}`,
      "--initial-cluster",
      etcdCluster,
      "--initial-cluster-state",
      e.state ?? "new",
      "--enable-v2=true",
    ]);
  const etcdProcs = new Map(etcds.map((e) => [e.name, startEtcd(e)]));
  const etcdClient = etcds[0]!.client;
  await until("etcd", 30_000, async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok, logs);

  const bin = pgBinDir();
  const template = fs.readFileSync(path.join(ROOT, "deploy", "patroni.yml"), "utf8");
  const nodes: PatroniNode[] = [0, 1, 2].map((i) => ({
    name: `pg${i + 1}`,
    pgPort: base + 10 + i * 2,
    restPort: base + 11 + i * 2,
    dataDir: path.join(dir, `pg${i + 1}`, "data"),
  }));
  const configs = nodes.map((n) => {
    const nodeDir = path.join(dir, n.name);
    fs.mkdirSync(nodeDir, { mode: 0o700 });
    own(nodeDir);
    const values: Record<string, string> = {
      NODE_NAME: n.name,
      REST_HOST: "127.0.0.1",
      REST_PORT: String(n.restPort),
      ETCD_HOSTS: etcds.map((e) => `127.0.0.1:${e.client}`).join(","),
      PG_HOST: "127.0.0.1",
      PG_PORT: String(n.pgPort),
      DATA_DIR: n.dataDir,
      BIN_DIR: bin,
      AUTH_METHOD: "trust",
      SUPERUSER_PASSWORD: "postgres",
      REPLICATION_PASSWORD: "replicator",
      SOCKET_DIR: nodeDir,
    };
    const yml = template
      .replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
        if (!(k in values)) throw new Error(`deploy/patroni.yml: no value for {{${k}}}`);
        return values[k]!;
      })
      .replace(/^(\s+ttl:) \d+$/m, `$1 ${timing.ttl}`)
      .replace(/^(\s+loop_wait:) \d+$/m, `$1 ${timing.loop_wait}`)
      .replace(/^(\s+retry_timeout:) \d+$/m, `$1 ${timing.retry_timeout}`)
      .replace(/^etcd:$/m, `${opts.dcs ?? "etcd"}:`)
      // Never a watchdog in tests: a stopped Patroni must not reset the machine.
      .replace(/^(\s+mode:) automatic$/m, `$1 "off"`)
      // Tests throw the data away: no fsync.
      .replace(/^(\s+)max_connections: (\d+)$/m, `$1max_connections: $2\n$1fsync: "off"`);
    const file = path.join(nodeDir, "patroni.yml");
    fs.writeFileSync(file, yml);
    own(file);
    return file;
  });
  const patronictlConfig = configs[0]!;

  // The first node bootstraps the cluster; the others clone it once there is a leader.
  const patronis = new Map<string, ChildProcess>();
  patronis.set("pg1", spawnLogged("pg1", PATRONI, [configs[0]!], true));
  const rest = (n: PatroniNode, p: string) =>
    fetch(`http://127.0.0.1:${n.restPort}${p}`, { signal: AbortSignal.timeout(2000) });
  await until("the first Patroni node to lead", 120_000, async () => (await rest(nodes[0]!, "/primary")).ok, logs);
  for (const [i, n] of nodes.entries())
    if (i > 0) patronis.set(n.name, spawnLogged(n.name, PATRONI, [configs[i]!], true));

  // HAProxy: the shipped file with its ports and servers replaced.
  const primaryPort = base + 5;
  const replicaPort = base + 6;
  const lines = fs.readFileSync(path.join(ROOT, "deploy", "haproxy-postgres.cfg"), "utf8").split("\n");
  const servers = nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.pgPort} maxconn 500 check port ${n.restPort}`);
  const out: string[] = [];
  let bind = 0;
  let inServers = false;
  for (const line of lines) {
    // Each listener's run of `server` lines becomes one line per node.
    if (/^\s+server pg\d+ /.test(line)) {
      if (!inServers) out.push(...servers);
      inServers = true;
      continue;
    }
    inServers = false;
    if (/^\s+bind /.test(line)) {
      out.push(`    bind 127.0.0.1:${bind++ === 0 ? primaryPort : replicaPort}`);
      continue;
    }
    out.push(line);
  }
  const haCfg = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(haCfg, out.join("\n"));
  spawnLogged("haproxy", HAPROXY, ["-db", "-f", haCfg]);

  const url = (port: number, database: string) => `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`;
  const state: PatroniCluster["state"] = async () => {
    for (const n of nodes) {
      try {
        const r = await rest(n, "/cluster");
        if (!r.ok) continue;
        const body = (await r.json()) as { members: { name: string; role: string; state: string }[] };
        return {
          leader: body.members.find((m) => m.role === "leader")?.name,
          sync: body.members.find((m) => m.role === "sync_standby" && ["running", "streaming"].includes(m.state))?.name,
          members: body.members,
        };
      } catch {
        // that node's API is down or hung: ask the next
      }
    }
    return { members: [] };
  };
  const cluster: PatroniCluster = {
    nodes,
    primaryUrl: (db) => url(primaryPort, db),
    replicaUrl: (db) => url(replicaPort, db),
    nodeUrl: (n, db) => url(n.pgPort, db),
    state,
    healthy: async (timeoutMs = 180_000) => {
      let found: { leader: string; sync: string } | null = null;
      await until(
        "a leader and a streaming synchronous standby, both reachable through HAProxy",
        timeoutMs,
        async () => {
          const s = await state();
          if (!s.leader || !s.sync) return false;
          // Every node back: the leader running, the others streaming from it.
          if (s.members.length !== nodes.length) return false;
          if (s.members.some((m) => !["running", "streaming"].includes(m.state))) return false;
          const [p, r] = await Promise.all([
            scalar(url(primaryPort, "postgres"), "SELECT NOT pg_is_in_recovery() AS v"),
            scalar(url(replicaPort, "postgres"), "SELECT pg_is_in_recovery() AS v"),
          ]);
          if (p !== true || r !== true) return false;
          found = { leader: s.leader, sync: s.sync };
          return true;
        },
        logs,
      );
      return found!;
    },
    postmasterPid: (n) => postmasterPid(n),
    postgresPids: (n) => postgresPids(n),
    patroniPid: (n) => patronis.get(n.name)!.pid!,
    restartPatroni: async (n) => {
      const old = patronis.get(n.name)!;
      kill(old.pid!, "SIGKILL");
      await exited(old);
      patronis.set(n.name, spawnLogged(n.name, PATRONI, [configs[nodes.indexOf(n)]!], true));
    },
    syncKey: async () => {
      const r = await fetch(`http://127.0.0.1:${etcdClient}/v2/keys/service/ai-job-runtime/sync`, {
        signal: AbortSignal.timeout(2000),
      });
      if (r.status === 404) return null;
      const body = (await r.json()) as { node?: { value?: string } };
      return body.node?.value ? JSON.parse(body.node.value) : null;
    },
    stopEtcd: async (name) => {
      const child = etcdProcs.get(name)!;
      kill(child.pid!, "SIGKILL");
      await exited(child);
    },
    startEtcd: (name) => {
      const e = etcds.find((x) => x.name === name)!;
      etcdProcs.set(name, startEtcd({ ...e, state: "existing" }));
    },
    patronictl: (args) => {
      const r = spawnSync(PATRONICTL, ["-c", patronictlConfig, ...args], { encoding: "utf8", ...user, cwd: dir });
      if (r.status !== 0) throw new Error(`patronictl ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    logs: () => logs,
    stop: async () => {
      process.removeListener("exit", killAll);
      // Patroni stops its PostgreSQL on SIGTERM; a stopped (SIGSTOPped) one is killed.
      for (const n of nodes) for (const pid of postgresPids(n)) kill(pid, "SIGCONT");
      for (const c of patronis.values()) if (c.pid) kill(c.pid, "SIGCONT");
      await Promise.all(
        children
          .filter((c) => c.exitCode === null && c.signalCode === null)
          .reverse()
          .map((c) => stopGroup(c, "SIGTERM", 20_000)),
      );
      killAll();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  log(`[patroni] etcd, ${nodes.map((n) => n.name).join(" and ")}, HAProxy on ${primaryPort}/${replicaPort}`);
  await cluster.healthy();
  return cluster;
}

function portFree(port: number) {
  return new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function postmasterPid(n: PatroniNode): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(n.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

function postgresPids(n: PatroniNode): number[] {
  const root = postmasterPid(n);
  if (!root) return [];
  const children = spawnSync("pgrep", ["-P", String(root)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean)
    .map(Number);
  return [root, ...children];
}

async function scalar(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, query_timeout: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.query(sql)).rows[0]?.v;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until(what: string, timeoutMs: number, ok: () => Promise<boolean>, logs: Map<string, string>) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}\n${[...logs].map(([k, v]) => `--- ${k}\n${v.slice(-3000)}`).join("\n")}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}
