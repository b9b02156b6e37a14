import type pg from "pg";
import { startAppServer } from "../lib/app-server";
import { startHaproxy } from "../lib/haproxy";
import { startPgBouncer } from "../lib/pgbouncer";
import { clearJobs } from "./setup";
import { processCpuMs } from "./cpu";
import { pairedRounds } from "./paired";
import { pickupUnderLoad } from "./pickup";
import { median } from "./stats";

type Roles = { postmaster: number; appGroup?: number };
type Opts = {
  db: pg.Client;
  url: string;
  /** The app on the direct database URL (the bench's own). */
  appUrl: string;
  roles: Roles;
  key: string;
  /** The direct app's settings, given to the app behind the topology too. */
  appEnv: Record<string, string>;
  paired: { jobs: number; slots: number; pairs: number; warmup: number };
  pickup: { jobs: number; busy: number; idle: number };
  log: (m: string) => void;
};

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The paired rounds and pickup under load twice in one run: against the bench's app on the direct
 * database URL, and through the topology of docs/operations.md — HAProxy (deploy/haproxy.cfg) in
 * front of a second app instance whose DATABASE_URL is PgBouncer in transaction mode
 * (deploy/pgbouncer.ini), DIRECT_DATABASE_URL direct. Each section runs direct first, then through
 * the topology, back to back; the ratios (topology ÷ direct) are what the extra hops cost, and the
 * CPU of HAProxy and PgBouncer per job is read from /proc around the topology's runs.
 */
export async function topologyBench(o: Opts) {
  const bouncer = await startPgBouncer({ databaseUrl: o.url });
  const app = await startAppServer({
    databaseUrl: bouncer.url,
    env: { ...o.appEnv, DATABASE_POOLER: "transaction", DIRECT_DATABASE_URL: o.url },
  });
  const lb = await startHaproxy({ servers: [`127.0.0.1:${app.port}`] });
  try {
    await ready(lb.url);
    const sides = {
      direct: { appUrl: o.appUrl, roles: o.roles },
      topology: { appUrl: lb.url, roles: { ...o.roles, appGroup: app.pgid() } },
    };
    const proxies = () => ({ haproxy: processCpuMs(lb.pid()), pgbouncer: processCpuMs(bouncer.pid()) });
    const perJob = (before: ReturnType<typeof proxies>, jobs: number) => {
      const now = proxies();
      return {
        haproxyMs: round((now.haproxy - before.haproxy) / jobs),
        pgbouncerMs: round((now.pgbouncer - before.pgbouncer) / jobs),
      };
    };

    const paired: Record<string, Awaited<ReturnType<typeof pairedRounds>>> = {};
    let pairedProxyCpu = { haproxyMs: 0, pgbouncerMs: 0 };
    for (const [side, s] of Object.entries(sides)) {
      const before = proxies();
      paired[side] = await pairedRounds({ db: o.db, url: o.url, key: o.key, ...s, ...o.paired });
      // Only ours goes through the topology (pg-boss talks to PostgreSQL itself): every round of ours, warm-ups too.
      if (side === "topology") pairedProxyCpu = perJob(before, o.paired.jobs * (o.paired.pairs + o.paired.warmup));
      o.log(`topology: paired ${side}: median ratio to pg-boss ${paired[side]!.medianRatio}`);
    }

    const pickup: Record<string, Awaited<ReturnType<typeof pickupUnderLoad>>> = {};
    let pickupProxyCpu = { haproxyMs: 0, pgbouncerMs: 0 };
    for (const [side, s] of Object.entries(sides)) {
      await clearJobs(o.db);
      const before = proxies();
      pickup[side] = await pickupUnderLoad({ db: o.db, key: o.key, log: o.log, ...s, ...o.pickup });
      // Every job the run finished went through the topology: the measured ones and the busy Runtimes'.
      const done = (await o.db.query(`SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'succeeded'`))
        .rows[0].n as number;
      if (side === "topology") pickupProxyCpu = perJob(before, Math.max(done, 1));
      o.log(`topology: pickup under load ${side}: commit → lock ${JSON.stringify(pickup[side]!.commitToLockMs)}`);
    }
    await clearJobs(o.db);

    const oursMedian = (p: Awaited<ReturnType<typeof pairedRounds>>) => median(p.pairs.map((x) => x.ours));
    return {
      paired: {
        directJobsPerSecond: oursMedian(paired.direct!),
        topologyJobsPerSecond: oursMedian(paired.topology!),
        ratio: round(oursMedian(paired.topology!) / oursMedian(paired.direct!)),
        directRatioToPgBoss: paired.direct!.medianRatio,
        topologyRatioToPgBoss: paired.topology!.medianRatio,
        proxyCpuPerJobMs: pairedProxyCpu,
        runs: paired,
      },
      pickupUnderLoad: {
        directCommitToLockMs: pickup.direct!.commitToLockMs,
        topologyCommitToLockMs: pickup.topology!.commitToLockMs,
        p50Ratio: round(pickup.topology!.commitToLockMs.p50 / pickup.direct!.commitToLockMs.p50),
        p99Ratio: round(pickup.topology!.commitToLockMs.p99 / pickup.direct!.commitToLockMs.p99),
        proxyCpuPerJobMs: pickupProxyCpu,
        runs: pickup,
      },
    };
  } finally {
    await lb.stop();
    await app.stop();
    await bouncer.stop();
  }
}

/** Until HAProxy has found the instance ready (its health check), so the first round is not refused. */
async function ready(url: string) {
  const until = Date.now() + 60_000;
  while (
    (await fetch(`${url}/api/health/ready`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > until) throw new Error("the app behind HAProxy never turned ready");
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function topologyMarkdown(t: Awaited<ReturnType<typeof topologyBench>>): string[] {
  const p = t.paired;
  const u = t.pickupUnderLoad;
  return [
    `Through the topology (HAProxy → an app instance → PgBouncer in transaction mode), against the same app shape on the direct URL in the same run:`,
    ``,
    `| section | direct | through HAProxy + PgBouncer | ratio | HAProxy / PgBouncer CPU ms per job |`,
    `|---|---|---|---|---|`,
    `| paired rounds, ours jobs/s (median round) | ${p.directJobsPerSecond} | ${p.topologyJobsPerSecond} | ${p.ratio} | ${p.proxyCpuPerJobMs.haproxyMs} / ${p.proxyCpuPerJobMs.pgbouncerMs} |`,
    `| paired rounds, median ratio to pg-boss | ${p.directRatioToPgBoss} | ${p.topologyRatioToPgBoss} | – | – |`,
    `| pickup under load, commit → lock p50 ms | ${u.directCommitToLockMs.p50} | ${u.topologyCommitToLockMs.p50} | ${u.p50Ratio} | ${u.proxyCpuPerJobMs.haproxyMs} / ${u.proxyCpuPerJobMs.pgbouncerMs} |`,
    `| pickup under load, commit → lock p99 ms | ${u.directCommitToLockMs.p99} | ${u.topologyCommitToLockMs.p99} | ${u.p99Ratio} | – |`,
    ``,
  ];
}
