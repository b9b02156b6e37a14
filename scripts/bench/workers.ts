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

/**
 * Starts `processes` bench Runtimes (scripts/bench/worker.ts) and waits until all have loaded.
 * go() starts them together; stop() asks long-polling ones to finish; done resolves with each
 * one's report when all have exited.
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
    spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "worker.ts"), mode], {
      env: {
        ...process.env,
        BENCH_URL: appUrl,
        BENCH_KEY: key,
        BENCH_ID: `b${i}`,
        BENCH_CONCURRENCY: String(concurrency),
        ...env,
      },
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  const outputs = children.map((child, i) => {
    let out = "";
    let onReady: () => void;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    child.stdout.on("data", (c) => {
      out += c;
      if (out.startsWith("ready\n")) onReady();
    });
    const done = new Promise<WorkerOut>((resolve, reject) =>
      child.on("exit", (code) =>
        code === 0
          ? resolve(JSON.parse(out.trim().split("\n").pop()!))
          : reject(new Error(`worker b${i} exited ${code}`)),
      ),
    );
    return { ready, done };
  });
  await Promise.all(outputs.map((o) => o.ready));
  return {
    go: () => children.forEach((c) => c.stdin.write("go\n")),
    stop: () => children.forEach((c) => c.stdin.write("stop\n")),
    done: Promise.all(outputs.map((o) => o.done)),
  };
}

/** Runs a throughput round: resolves with the reports and the time from "go" to the last one done. */
export async function runWorkers(mode: string, appUrl: string, key: string, processes: number, concurrency: number) {
  const workers = await startWorkers(mode, appUrl, key, processes, concurrency);
  const t = performance.now();
  workers.go();
  const outs = await workers.done;
  return { outs, elapsed: performance.now() - t };
}
