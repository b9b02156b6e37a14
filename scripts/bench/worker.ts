import http from "node:http";
import { postJson } from "./http";
import { outputFor, usage } from "./payload";
import { createResultBatcher } from "../../runtime/result-batcher";
import { MAX_RESULTS_PER_REQUEST } from "../../server/jobs/constants";
import { RESULT_LIMITS } from "../../server/runtime-api/contract";

/**
 * A bench Runtime: speaks the real protocol over HTTP with trivial work, `concurrency` loops in
 * one process, until the queue is empty; then waits for the next "go" on stdin (another round in the
 * same process, its code warm) until "stop" or the end of stdin. Prints one JSON line per round:
 * jobs done, its own CPU and latencies per endpoint.
 * Usage: tsx scripts/bench/worker.ts <mode: claim|slots|poll-lock|longpoll> (env BENCH_URL, BENCH_KEY, BENCH_ID, BENCH_CONCURRENCY, BENCH_WAIT_MS,
 * BENCH_CAPABILITIES: job types, comma-separated, default learning_state_analysis; BENCH_INSTANCE_PER_LOOP=1: each loop is its own
 * Runtime instance, `<BENCH_ID>-<loop>`, as many single-slot Runtimes would be)
 * slots: as the reference Runtime claims, up to its free slots (`limit` ≤ 50) in one poll, and a job
 * that is done before its first stage report is due answers straight from locked (docs/contract.md#states-and-transitions: a
 * result may come straight from locked); results that end while one is in flight go together in
 * the next POST /results, as the reference Runtime sends them (runtime/result-batcher.ts), so a
 * short job costs a share of a result request and a share of a claim.
 * slots-single: the same, one result request per job.
 * slots-wait: slots as a busy reference Runtime runs them: each claim also long-polls (waitMs), until "stop" on stdin.
 * longpoll: an idle Runtime as the reference one is: claim with waitMs, run, repeat, until "stop" on stdin
 * (BENCH_SPREAD_MS: each loop starts at a random moment within it).
 */
const mode = process.argv[2] ?? "claim";
const base = process.env.BENCH_URL!;
const key = process.env.BENCH_KEY!;
const runtime = process.env.BENCH_ID ?? `bench-${process.pid}`;
const id = runtime;
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency * 2 });
const latencies: Record<string, number[]> = {
  claim: [],
  poll: [],
  lock: [],
  heartbeat: [],
  result: [],
  results: [],
  longpoll: [],
};
const waitMs = Number(process.env.BENCH_WAIT_MS ?? 20_000);
const capabilities = (process.env.BENCH_CAPABILITIES ?? "learning_state_analysis").split(",");
const perLoop = process.env.BENCH_INSTANCE_PER_LOOP === "1";
const spreadMs = Number(process.env.BENCH_SPREAD_MS ?? 0);
let stopping = false;
let done = 0;
let conflicts = 0;
let refused = 0;

const post = (path: string, body: unknown) => postJson(agent, `${base}/internal/runtime/jobs/${path}`, key, body);

async function timed(name: string, path: string, body: unknown) {
  const t = performance.now();
  const res = await post(path, body);
  latencies[name]!.push(performance.now() - t);
  return res;
}

/** A claim's jobs; a refused claim (503 under load) is asked again, never taken for an empty queue. */
async function claim(limit: number, name = "claim", extra: Record<string, unknown> = {}, instance = runtime) {
  for (;;) {
    const res = await timed(name, "poll", {
      runtimeInstanceId: instance,
      capabilities,
      limit,
      claim: true,
      ...extra,
    });
    if (res.status === 200)
      return (res.json?.jobs ?? []) as { job: { id: string; attemptNo: number; jobType: string } }[];
    refused++;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function submit(jobId: string, attemptNo: number, jobType = capabilities[0]!, id = runtime) {
  const res = await timed("result", `${jobId}/result`, {
    runtimeInstanceId: id,
    attemptNo,
    output: outputFor(jobType),
    usage,
  });
  if (res.status !== 200) throw new Error(`result ${res.status} ${JSON.stringify(res.json)}`);
  done++;
}

async function finish(jobId: string, attemptNo: number, jobType = capabilities[0]!, id = runtime) {
  const hb = await timed("heartbeat", `${jobId}/heartbeat`, {
    runtimeInstanceId: id,
    attemptNo,
    stage: "model_inference",
    progress: 50,
  });
  if (hb.status !== 200) throw new Error(`heartbeat ${hb.status} ${JSON.stringify(hb.json)}`);
  await submit(jobId, attemptNo, jobType, id);
}

type Item = { jobId: string; jobType: string; attemptNo: number; output: unknown; usage: typeof usage };
const batcher = createResultBatcher<Item, unknown>({
  send: async (items) => {
    const res = await timed("results", "results", { runtimeInstanceId: runtime, results: items });
    if (res.status !== 200) throw new Error(`results ${res.status} ${JSON.stringify(res.json)}`);
    return (res.json.results as { httpStatus: number; body: unknown }[]).map((r) =>
      r.httpStatus === 200 ? { ok: true, value: r.body } : { ok: false, error: new Error(JSON.stringify(r)) },
    );
  },
  sizeOf: (item) => Buffer.byteLength(JSON.stringify(item)),
  maxItems: MAX_RESULTS_PER_REQUEST,
  maxBytes: RESULT_LIMITS.maxBodyBytes - 1024, // room for the wrapper
});

async function submitTogether(jobId: string, attemptNo: number) {
  const jobType = capabilities[0]!;
  await batcher.submit({ jobId, jobType, attemptNo, output: outputFor(jobType), usage });
  done++;
}

/** One claimer per process; every claimed job runs at once, and the claimer asks again for what has come free. */
async function slotsLoop(together: boolean, untilStopped = false) {
  const running = new Set<Promise<void>>();
  while (!(untilStopped && stopping)) {
    const free = Math.min(concurrency - running.size, 50);
    const jobs = await claim(free, "claim", untilStopped ? { waitMs } : {});
    if (!jobs.length && !running.size && !untilStopped) return;
    for (const j of jobs) {
      const send = together ? submitTogether : submit;
      const p: Promise<void> = send(j.job.id, j.job.attemptNo).finally(() => running.delete(p));
      running.add(p);
    }
    // Claim again as soon as a slot is free (all of them, when the queue ran dry).
    if (running.size >= concurrency || (!jobs.length && running.size)) await Promise.race(running);
  }
  await Promise.all(running);
}

async function claimLoop() {
  for (;;) {
    const jobs = await claim(1);
    if (!jobs.length) return;
    for (const j of jobs) await finish(j.job.id, j.job.attemptNo);
  }
}

async function pollLockLoop() {
  for (;;) {
    const res = await timed("poll", "poll", {
      runtimeInstanceId: id,
      capabilities,
      limit: 20,
    });
    const jobs = res.json?.jobs ?? [];
    if (!jobs.length) return;
    // Start at a random candidate, as a Runtime among many should, so that loops do not all race for the first.
    const start = Math.floor(Math.random() * jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[(i + start) % jobs.length];
      const lock = await timed("lock", `${j.id}/lock`, { runtimeInstanceId: id });
      if (lock.status === 200) {
        await finish(j.id, lock.json.job.attemptNo);
        break;
      }
      conflicts++;
    }
  }
}

async function longPollLoop(loop: number) {
  const instance = perLoop ? `${runtime}-${loop}` : runtime;
  // A fleet started over time: each loop's first poll at a random moment within BENCH_SPREAD_MS, so
  // the long polls' time-outs are spread, not all due in the same instant.
  if (spreadMs) await new Promise((r) => setTimeout(r, Math.random() * spreadMs));
  while (!stopping) {
    for (const j of await claim(1, "longpoll", { waitMs }, instance))
      await finish(j.job.id, j.job.attemptNo, j.job.jobType, instance);
  }
}

// Loaded: say so, and start when the bench says go (on stdin), so process start-up is not measured.
// A mode that drains the queue runs a round per "go" and reports each, in the same process, as a
// long-lived Runtime runs (its code warm from the rounds before); "stop" or the end of stdin ends it.
const drains = mode !== "longpoll" && mode !== "slots-wait";
const gos: string[] = [];
let ended = false;
let wake: (() => void) | undefined;
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d: string) => {
  pending += d;
  for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
    const line = pending.slice(0, i).trim();
    pending = pending.slice(i + 1);
    if (line === "stop") stopping = true;
    else if (line) gos.push(line);
  }
  wake?.();
});
process.stdin.on("end", () => {
  ended = true;
  wake?.();
});
async function nextGo(): Promise<boolean> {
  while (!gos.length && !ended && !stopping) await new Promise<void>((r) => (wake = r));
  return gos.shift() !== undefined;
}
process.stdout.write("ready\n");
while (await nextGo()) {
  done = conflicts = refused = 0;
  for (const k of Object.keys(latencies)) latencies[k] = [];
  const started = performance.now();
  // Our own CPU from "go" on: process start-up (tsx, imports) is not the protocol's cost.
  const cpuAtGo = process.cpuUsage();
  const loop = mode === "claim" ? claimLoop : mode === "longpoll" ? longPollLoop : pollLockLoop;
  await (mode.startsWith("slots")
    ? slotsLoop(mode !== "slots-single", mode === "slots-wait")
    : Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i))));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuAtGo);
  process.stdout.write(
    JSON.stringify({ id, done, conflicts, refused, elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, latencies }) +
      "\n",
  );
  if (!drains) break;
}
agent.destroy();
process.stdin.destroy();
