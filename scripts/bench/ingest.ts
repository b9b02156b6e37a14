import http from "node:http";
import type pg from "pg";
import { cpuNow, cpuSince, loadAverage, type CpuRoles } from "./cpu";
import { percentiles } from "./stats";

/**
 * Ingestion through the platform API: activity items per second through
 * POST /api/v1/learners/{id}/activity in batches of 1,000 over real HTTP (keep-alive, several
 * batches in flight), and the CPU each item costs PostgreSQL and the app. Then the same batches
 * again: every item a repeat, counted and not stored, which is what a platform's retries cost.
 */
export type IngestOptions = {
  db: pg.Client;
  appUrl: string;
  agent: http.Agent;
  key: string;
  roles: { postmaster: number; appGroup?: number };
  batches: number;
  concurrency: number;
  learners: number;
  log: (m: string) => void;
};

const BATCH = 1000;
const KPS = 20;

function send(agent: http.Agent, method: string, url: string, key: string, body: unknown) {
  const data = JSON.stringify(body);
  return new Promise<{ status: number; json: { new?: number } & Record<string, unknown> }>((resolve, reject) => {
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      "content-length": Buffer.byteLength(data),
    };
    const req = http.request(url, { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** Batch n of a learner: 70% quiz attempts, 30% study sessions, each with its own external id. */
function batch(n: number) {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + (n * BATCH + i) * 1000).toISOString();
  const quizAttempts = [];
  const studySessions = [];
  for (let i = 0; i < BATCH; i++) {
    if (i % 10 < 7)
      quizAttempts.push({
        externalId: `q-${n}-${i}`,
        knowledgePointExternalId: `kp-${i % KPS}`,
        correct: i % 3 !== 0,
        answeredAt: at(i),
      });
    else
      studySessions.push({
        externalId: `s-${n}-${i}`,
        materialExternalId: "m-1",
        startedAt: at(i),
        minutes: 1 + (i % 30),
      });
  }
  return { quizAttempts, studySessions };
}

async function pass(o: IngestOptions, learnerIds: string[], expectNew: boolean) {
  const work = Array.from({ length: o.batches }, (_, n) => ({ learner: learnerIds[n % learnerIds.length]!, n }));
  const latencies: number[] = [];
  let stored = 0;
  const cpu0 = cpuNow(o.roles);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      for (let w = work.shift(); w; w = work.shift()) {
        const t = performance.now();
        const res = await send(o.agent, "POST", `${o.appUrl}/api/v1/learners/${w.learner}/activity`, o.key, batch(w.n));
        latencies.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`activity answered ${res.status}: ${JSON.stringify(res.json)}`);
        stored += res.json.new ?? 0;
      }
    }),
  );
  const elapsed = performance.now() - t0;
  const cpu = cpuSince(cpu0, o.roles);
  const items = o.batches * BATCH;
  if (stored !== (expectNew ? items : 0))
    throw new Error(`${stored} of ${items} items stored (expected ${expectNew ? items : 0})`);
  return {
    items,
    itemsPerSecond: Math.round((items / elapsed) * 1000),
    batchMs: percentiles(latencies),
    cpuPerItemUs: perItemUs(cpu, items),
  };
}

const perItemUs = (cpu: CpuRoles, items: number) => ({
  postgresUs: Math.round(((cpu.postgres * 1000) / items) * 10) / 10,
  appUs: Math.round(((cpu.app * 1000) / items) * 10) / 10,
});

export async function ingestBench(o: IngestOptions) {
  const learnerIds = Array.from({ length: o.learners }, (_, i) => `bench-learner-${i}`);
  for (const id of learnerIds) {
    const put = await send(o.agent, "PUT", `${o.appUrl}/api/v1/learners/${id}`, o.key, { name: id });
    if (put.status !== 201 && put.status !== 200) throw new Error(`learner PUT answered ${put.status}`);
    const kps = Array.from({ length: KPS }, (_, k) => ({ externalId: `kp-${k}`, title: `Knowledge point ${k}` }));
    const mat = await send(o.agent, "PUT", `${o.appUrl}/api/v1/learners/${id}/materials/m-1`, o.key, {
      title: "Bench material",
      text: "Text",
      knowledgePoints: kps,
    });
    if (mat.status !== 201 && mat.status !== 200) throw new Error(`material PUT answered ${mat.status}`);
  }
  o.log(`ingest: ${o.batches} batches of ${BATCH} over ${o.learners} learners, ${o.concurrency} in flight…`);
  const fresh = await pass(o, learnerIds, true);
  o.log(`ingest (new items): ${JSON.stringify(fresh)}`);
  const repeats = await pass(o, learnerIds, false);
  o.log(`ingest (all repeats): ${JSON.stringify(repeats)}`);
  const rows = await o.db.query(
    `SELECT (SELECT count(*) FROM "QuizAttempt")::int + (SELECT count(*) FROM "StudySession")::int AS n`,
  );
  return {
    batchSize: BATCH,
    batches: o.batches,
    learners: o.learners,
    concurrency: o.concurrency,
    fresh,
    repeats,
    rowsAfter: rows.rows[0].n as number,
    loadAverage: loadAverage(),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the results object, read by shape
export function ingestMarkdown(r: any) {
  return [
    `Ingestion through POST /api/v1/learners/{id}/activity, batches of ${r.batchSize} (70% quiz attempts, 30% study sessions), ${r.concurrency} in flight over ${r.learners} learners, ${r.batches} batches:`,
    ``,
    `| pass | items | items/s | batch p50 / p95 ms | PostgreSQL CPU µs per item | app CPU µs per item |`,
    `|---|---|---|---|---|---|`,
    `| new items | ${r.fresh.items} | ${r.fresh.itemsPerSecond} | ${r.fresh.batchMs.p50} / ${r.fresh.batchMs.p95} | ${r.fresh.cpuPerItemUs.postgresUs} | ${r.fresh.cpuPerItemUs.appUs} |`,
    `| the same again (all repeats) | ${r.repeats.items} | ${r.repeats.itemsPerSecond} | ${r.repeats.batchMs.p50} / ${r.repeats.batchMs.p95} | ${r.repeats.cpuPerItemUs.postgresUs} | ${r.repeats.cpuPerItemUs.appUs} |`,
    ``,
    `Load average during the run: ${r.loadAverage.join(" ")}.`,
    ``,
  ];
}
