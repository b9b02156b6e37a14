import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pg from "pg";
import { postJson } from "./http";
import { insertJobs } from "./setup";
import { percentiles } from "./stats";

/**
 * What a table of N jobs costs on disk and whether the calls stay flat as N
 * grows. The console section records both at its size (BENCH_CONSOLE_ROWS); runs at three sizes
 * leave console-<size>.json files, and scaleSummary() sets them side by side in scale.md.
 */
const TABLES = ["AiRuntimeJob", "JobEvent", "AiRuntimeResult", "JobUsage"] as const;

export type TableSize = { table: string; rows: number; heapMb: number; indexMb: number; totalMb: number };
type Pcts = ReturnType<typeof percentiles>;

const mb = (bytes: string | number) => Math.round((Number(bytes) / 2 ** 20) * 10) / 10;

/** Heap (with TOAST), indexes and total of each table that grows with the jobs, after VACUUM ANALYZE. */
export async function tableSizes(db: pg.Client): Promise<TableSize[]> {
  // Summed over a partitioned table's partitions; a plain table is its own one part.
  const { rows } = await db.query(
    `SELECT t AS table, sum(greatest(c.reltuples, 0))::bigint AS rows,
       sum(pg_total_relation_size(c.oid) - pg_indexes_size(c.oid)) AS heap, sum(pg_indexes_size(c.oid)) AS idx,
       sum(pg_total_relation_size(c.oid)) AS total
     FROM unnest($1::text[]) t CROSS JOIN LATERAL (
       SELECT relid FROM pg_partition_tree(format('%I', t)::regclass) WHERE isleaf
       UNION ALL SELECT oid FROM pg_class WHERE oid = format('%I', t)::regclass AND relkind = 'r') p
     JOIN pg_class c ON c.oid = p.relid GROUP BY t`,
    [TABLES],
  );
  return TABLES.map((t) => rows.find((r) => r.table === t)).map((r) => ({
    table: r.table,
    rows: Number(r.rows),
    heapMb: mb(r.heap),
    indexMb: mb(r.idx),
    totalMb: mb(r.total),
  }));
}

/**
 * Claim over HTTP at this size, as a Runtime asks (limit 1, the statement's cost per call): 2,000
 * pending jobs of one learner join the table's own, 50 warm-up claims, then 500 timed ones.
 */
export async function claimAtSize(db: pg.Client, appUrl: string, key: string, agent: http.Agent): Promise<Pcts> {
  await insertJobs(db, 2000);
  const samples: number[] = [];
  for (let i = 0; i < 550; i++) {
    const t = performance.now();
    const res = await postJson(agent, `${appUrl}/internal/runtime/jobs/poll`, key, {
      runtimeInstanceId: "scale",
      capabilities: ["learning_state_analysis"],
      limit: 1,
      claim: true,
    });
    if (res.status !== 200 || !(res.json as { jobs: unknown[] }).jobs.length)
      throw new Error(`claim answered ${res.status}`);
    if (i >= 50) samples.push(performance.now() - t);
  }
  return percentiles(samples);
}

type SizedRun = {
  jobs: number;
  events: number;
  loadAverage?: number[];
  at: string;
  sizes: TableSize[];
  claimMs: Pcts;
  afterMs: Record<string, Pcts>;
  movingMs?: Record<string, Pcts>;
};

/** Least squares y = a + b·x over the runs; the value at x. */
function fit(xs: number[], ys: number[], x: number) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const b = xs.reduce((s, xi, i) => s + (xi - mx) * (ys[i]! - my), 0) / xs.reduce((s, xi) => s + (xi - mx) ** 2, 0);
  return my + b * (x - mx);
}

/** Reads every console-<size>.json that has sizes and writes scale.md: the runs side by side, and 10M by fit when not measured. */
export function scaleSummary(dir: string): string | null {
  const runs = fs
    .readdirSync(dir)
    .filter((f) => /^console-[\d.]+[mk]\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as SizedRun)
    .filter((r) => r.sizes && r.claimMs)
    .sort((a, b) => a.jobs - b.jobs);
  if (!runs.length) return null;
  const total = (r: SizedRun) => r.sizes.reduce((s, t) => s + t.totalMb, 0);
  const worst = (m: Record<string, Pcts> | undefined) =>
    Object.entries(m ?? {})
      .filter(([n]) => !n.startsWith("learner"))
      .sort((a, b) => b[1].p95 - a[1].p95)[0];
  const lines = [
    `# Scale: the same calls at ${runs.map((r) => `${r.jobs / 1e6}M`).join(", ")} jobs`,
    "",
    "`BENCH_CONSOLE_ROWS=<n> npm run bench -- --only=console` at each size (30 days of jobs over 200 learners, ≈3 events per job, a result per succeeded job, a usage row per attempt). Sizes after `VACUUM ANALYZE`; heap includes TOAST. Claim: 500 calls over HTTP, limit 1. Console: 40 interleaved rounds of every call.",
    "",
    "| jobs | events | job table + indexes MB | events MB | results MB | usage MB | total MB | MB per million jobs | claim p50 / p99 ms | slowest console call p95 (idle / jobs moving) | learner list p50 / p95 ms | load |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...runs.map((r) => {
      const [job, ev, res, use] = r.sizes;
      const w = worst(r.afterMs);
      const wm = worst(r.movingMs);
      const l = r.afterMs["learner: job list"];
      return `| ${r.jobs.toLocaleString("en")} | ${r.events.toLocaleString("en")} | ${job!.heapMb} + ${job!.indexMb} | ${ev!.totalMb} | ${res!.totalMb} | ${use!.totalMb} | ${Math.round(total(r))} | ${Math.round(total(r) / (r.jobs / 1e6))} | ${r.claimMs.p50} / ${r.claimMs.p99} | ${w ? `${w[1].p95} (${w[0]})` : "—"} / ${wm ? `${wm[1].p95} (${wm[0]})` : "—"} | ${l ? `${l.p50} / ${l.p95}` : "—"} | ${r.loadAverage?.join(" ") ?? "?"} |`;
    }),
    "",
  ];
  if (runs.length >= 3 && !runs.some((r) => r.jobs === 10_000_000)) {
    const xs = runs.map((r) => r.jobs / 1e6);
    const at10 = (ys: number[]) => Math.round(fit(xs, ys, 10));
    /** Growth per million jobs by the same fit (latencies: noise between runs is of the same order). */
    const slope = (ys: number[]) => Math.round((fit(xs, ys, 1) - fit(xs, ys, 0)) * 100) / 100;
    lines.push(
      `Ten million by a straight-line fit over these ${runs.length} sizes: ${at10(runs.map(total))} MB on disk. Latency growth per million jobs by the same fit: claim p99 ${slope(runs.map((r) => r.claimMs.p99))} ms, slowest console call p95 ${slope(runs.map((r) => worst(r.afterMs)?.[1].p95 ?? 0))} ms, learner list p95 ${slope(runs.map((r) => r.afterMs["learner: job list"]?.p95 ?? 0))} ms.`,
      "",
    );
  }
  fs.writeFileSync(path.join(dir, "scale.md"), lines.join("\n"));
  return lines.join("\n");
}
