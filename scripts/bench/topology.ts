import type pg from "pg";
import { startAppServer } from "../lib/app-server";
import { startHaproxy } from "../lib/haproxy";
import { startPgBouncer } from "../lib/pgbouncer";
import { clearJobs } from "./setup";
import { processCpuMs } from "./cpu";
import { pairedRounds } from "./paired";
import { workerPool } from "./workers";
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

    // The paired rounds interleaved, one triple (ours, pg-boss fetch(1), pg-boss fetch(16)) per side
    // back to back, the side that goes first alternating: a round pair shares the machine's speed of
    // its minutes, so topology ÷ direct within a pair is what the hops cost, not what the machine did.
    type Paired = Awaited<ReturnType<typeof pairedRounds>>;
    const rounds: Record<keyof typeof sides, Paired[]> = { direct: [], topology: [] };
    // One set of 8 Runtimes per side for the whole section, warm after its first round, as in the paired bench.
    const pools = {
      direct: await workerPool("slots", sides.direct.appUrl, o.key, 8, o.paired.slots),
      topology: await workerPool("slots", sides.topology.appUrl, o.key, 8, o.paired.slots),
    };
    let pairedProxyCpu = { haproxyMs: 0, pgbouncerMs: 0 };
    // An even number of round pairs, so each side goes first as often as the other.
    const pairs = o.paired.pairs + (o.paired.pairs % 2);
    try {
      for (let r = 0; r < pairs; r++) {
        const order = (r % 2 ? ["topology", "direct"] : ["direct", "topology"]) as (keyof typeof sides)[];
        for (const side of order) {
          const before = proxies();
          const warmup = r === 0 ? o.paired.warmup : 0; // each side's first round warms up
          const run = await pairedRounds({
            pool: pools[side],
            db: o.db,
            url: o.url,
            key: o.key,
            ...sides[side],
            ...o.paired,
            pairs: 1,
            warmup,
          });
          rounds[side].push(run);
          if (side === "topology") {
            // Only ours goes through the topology (pg-boss talks to PostgreSQL itself): every round of ours, warm-ups too.
            const cpu = perJob(before, o.paired.jobs * (1 + warmup));
            pairedProxyCpu = {
              haproxyMs: pairedProxyCpu.haproxyMs + cpu.haproxyMs / pairs,
              pgbouncerMs: pairedProxyCpu.pgbouncerMs + cpu.pgbouncerMs / pairs,
            };
          }
        }
        o.log(
          `topology: paired round ${r + 1}: ours direct ${rounds.direct[r]!.pairs[0]!.ours}, through the topology ${rounds.topology[r]!.pairs[0]!.ours} jobs/s`,
        );
      }
    } finally {
      await pools.direct.close();
      await pools.topology.close();
    }
    pairedProxyCpu = { haproxyMs: round(pairedProxyCpu.haproxyMs), pgbouncerMs: round(pairedProxyCpu.pgbouncerMs) };
    const paired = Object.fromEntries(
      Object.entries(rounds).map(([side, runs]) => {
        const pairs = runs.map((x) => x.pairs[0]!);
        return [
          side,
          {
            pairs,
            medianRatio: median(pairs.map((x) => x.ratio)),
            medianBatchRatio: median(pairs.map((x) => x.batchRatio)),
          },
        ];
      }),
    ) as Record<keyof typeof sides, { pairs: Paired["pairs"]; medianRatio: number; medianBatchRatio: number }>;
    const withinPair = pairRatios(paired);
    const ourCpu = (x: Paired["pairs"][number]) =>
      x.oursCpuPerJobMs.postgresMs + x.oursCpuPerJobMs.appMs + x.oursCpuPerJobMs.runtimesMs;

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

    const oursMedian = (side: keyof typeof sides) => median(paired[side].pairs.map((x) => x.ours));
    return {
      paired: {
        rounds: pairs,
        slots: o.paired.slots,
        directJobsPerSecond: oursMedian("direct"),
        topologyJobsPerSecond: oursMedian("topology"),
        /** Ours through the topology ÷ ours direct within each round pair: geometric mean, range. */
        ratio: round(geometricMean(withinPair)),
        minRatio: round(Math.min(...withinPair)),
        maxRatio: round(Math.max(...withinPair)),
        directRatioToPgBoss: paired.direct.medianRatio,
        topologyRatioToPgBoss: paired.topology.medianRatio,
        directBatchRatioToPgBoss: paired.direct.medianBatchRatio,
        topologyBatchRatioToPgBoss: paired.topology.medianBatchRatio,
        /** Our processes' CPU per job (PostgreSQL + app + Runtimes), medians; the proxies' apart. */
        directCpuPerJobMs: round(median(paired.direct.pairs.map(ourCpu))),
        topologyCpuPerJobMs: round(median(paired.topology.pairs.map(ourCpu))),
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

type Side = { pairs: { ours: number }[] };

/** Ours through the topology ÷ ours direct, round pair by round pair. */
export const pairRatios = (p: { direct: Side; topology: Side }) =>
  p.topology.pairs.map((t, i) => t.ours / p.direct.pairs[i]!.ours);

/**
 * The side that runs second in a round pair is slower, whichever it is (its PostgreSQL CPU per
 * job is higher): with each order in half the pairs, the geometric mean of the pairs' ratios
 * cancels that, where a median picks one order's figure.
 */
export const geometricMean = (xs: number[]) => Math.exp(xs.reduce((t, x) => t + Math.log(x), 0) / xs.length);

export function topologyMarkdown(t: Awaited<ReturnType<typeof topologyBench>>): string[] {
  const p = t.paired;
  const u = t.pickupUnderLoad;
  return [
    `Through the topology (HAProxy → an app instance → PgBouncer in transaction mode), against the same app shape on the direct URL in the same run:`,
    ``,
    `| section | direct | through HAProxy + PgBouncer | ratio | HAProxy / PgBouncer CPU ms per job |`,
    `|---|---|---|---|---|`,
    `| paired rounds, ours jobs/s (median of ${p.rounds} rounds; ratio: geometric mean over round pairs, each order in half of them; range) | ${p.directJobsPerSecond} | ${p.topologyJobsPerSecond} | ${p.ratio} (${p.minRatio}–${p.maxRatio}) | ${p.proxyCpuPerJobMs.haproxyMs} / ${p.proxyCpuPerJobMs.pgbouncerMs} |`,
    `| paired rounds, ours ÷ pg-boss 12 fetch(1), median | ${p.directRatioToPgBoss} | ${p.topologyRatioToPgBoss} | – | – |`,
    `| paired rounds, ours ÷ pg-boss 12 fetch(${p.slots}), median | ${p.directBatchRatioToPgBoss} | ${p.topologyBatchRatioToPgBoss} | – | – |`,
    `| paired rounds, our CPU ms per job (PostgreSQL + app + Runtimes), median | ${p.directCpuPerJobMs} | ${p.topologyCpuPerJobMs} | ${round(p.topologyCpuPerJobMs / p.directCpuPerJobMs)} | – |`,
    `| pickup under load, commit → lock p50 ms | ${u.directCommitToLockMs.p50} | ${u.topologyCommitToLockMs.p50} | ${u.p50Ratio} | ${u.proxyCpuPerJobMs.haproxyMs} / ${u.proxyCpuPerJobMs.pgbouncerMs} |`,
    `| pickup under load, commit → lock p99 ms | ${u.directCommitToLockMs.p99} | ${u.topologyCommitToLockMs.p99} | ${u.p99Ratio} | – |`,
    ``,
  ];
}
