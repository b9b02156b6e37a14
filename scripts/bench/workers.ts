import { spawn } from "node:child_process";
import path from "node:path";

/** cpuMs: the worker's own CPU from "go" to its end (its start-up excluded). */
export type WorkerOut = {
  done: number;
  conflicts: number;
  refused?: number;
  cpuMs: number;
  latencies: Record<string, number[]>;
};

/** BENCH_RUNTIME_NODE_ARGS: Node's own flags for each bench Runtime (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
const runtimeNodeArgs = process.env.BENCH_RUNTIME_NODE_ARGS?.split(" ").filter(Boolean) ?? [];

/**
 * Starts `processes` bench Runtimes (scripts/bench/worker.ts) and waits until all have loaded.
 * go() starts them together; stop() asks long-polling ones to finish; next() resolves with each
 * one's report of the round that go() started; close() ends their input (a draining Runtime exits
 * after its round); done resolves with each one's last report when all have exited.
 */
export async function startWorkers(
  mode: string,
  appUrl: string,
  key: string,
  processes: number,
  concurrency: number,
  env: Record<string, string> = {},
) {
  const children = Array.from({ length: processes }, (_, i) =>
    spawn(
      process.execPath,
      [...runtimeNodeArgs, "--import", "tsx", path.join(import.meta.dirname, "worker.ts"), mode],
      {
        env: {
          ...process.env,
          BENCH_URL: appUrl,
          BENCH_KEY: key,
          BENCH_ID: `b${i}`,
          BENCH_CONCURRENCY: String(concurrency),
          ...env,
        },
        stdio: ["pipe", "pipe", "inherit"],
      },
    ),
  );
  const readers = children.map((child, i) => {
    let out = "";
    const reports: WorkerOut[] = [];
    let last: WorkerOut | undefined;
    let onLine: (() => void) | undefined;
    let onReady: () => void;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    child.stdout.on("data", (c) => {
      out += c;
      for (let n = out.indexOf("\n"); n >= 0; n = out.indexOf("\n")) {
        const line = out.slice(0, n);
        out = out.slice(n + 1);
        if (line === "ready") onReady();
        else if (line) reports.push((last = JSON.parse(line) as WorkerOut));
      }
      onLine?.();
    });
    let gone = false;
    const exited = new Promise<void>((resolve, reject) =>
      child.on("exit", (code) => {
        gone = true;
        if (code === 0) resolve();
        else reject(new Error(`worker b${i} exited ${code}`));
      }),
    );
    const next = async (): Promise<WorkerOut> => {
      while (!reports.length) {
        if (gone) throw new Error(`worker b${i} exited without a report`);
        await Promise.race([new Promise<void>((r) => (onLine = r)), exited]);
      }
      return reports.shift()!;
    };
    return { ready, next, done: exited.then(() => last!) };
  });
  await Promise.all(readers.map((r) => r.ready));
  return {
    go: () => children.forEach((c) => c.stdin.write("go\n")),
    stop: () => children.forEach((c) => c.stdin.write("stop\n")),
    next: () => Promise.all(readers.map((r) => r.next())),
    close: () => children.forEach((c) => c.stdin.end()),
    done: quiet(Promise.all(readers.map((r) => r.done))),
  };
}

/**
 * A worker that fails while nobody awaits `done` yet (the bench is inside a section, or in its
 * finally after a section threw) must not end the bench as an unhandled rejection: that skipped
 * the finally and hid the section's own error. The rejection still reaches whoever awaits.
 */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/**
 * Throughput rounds on one set of bench Runtimes: each run() starts a round and resolves with the
 * reports and the time from "go" to the last one done. The processes live across rounds, as real
 * Runtimes do, so a warm-up round warms their code as it warms the app's and pg-boss's.
 */
export async function workerPool(mode: string, appUrl: string, key: string, processes: number, concurrency: number) {
  const start = () => startWorkers(mode, appUrl, key, processes, concurrency);
  let workers = await start();
  return {
    async run() {
      // BENCH_FRESH_RUNTIMES=1: new processes for every round, code cold each time.
      if (process.env.BENCH_FRESH_RUNTIMES === "1") {
        workers.close();
        await workers.done;
        workers = await start();
      }
      const t = performance.now();
      workers.go();
      const outs = await workers.next();
      return { outs, elapsed: performance.now() - t };
    },
    async close() {
      workers.close();
      await workers.done;
    },
  };
}
