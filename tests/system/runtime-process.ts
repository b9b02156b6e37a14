import { spawn } from "node:child_process";
import path from "node:path";
import { uid } from "../helpers/factories";

const ROOT = path.resolve(import.meta.dirname, "../..");

export type RuntimeEvent = { event: string; jobId?: string; [k: string]: unknown };

/**
 * A reference Runtime as a separate OS process (`node --import tsx runtime/main.ts`, one process,
 * so SIGKILL really kills it), configured only through its environment like in production.
 */
export function spawnRuntime(opts: { apiUrl: string; apiKey: string; env?: Record<string, string>; cwd?: string }) {
  const instanceId = uid("rt");
  const child = spawn(process.execPath, ["--import", "tsx", "runtime/main.ts"], {
    // Another tree: a previous release's Runtime (tests/system/previous-runtime.ts).
    cwd: opts.cwd ?? ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      RUNTIME_API_URL: opts.apiUrl,
      RUNTIME_API_KEY: opts.apiKey,
      RUNTIME_INSTANCE_ID: instanceId,
      RUNTIME_PROVIDER: "local",
      RUNTIME_CONCURRENCY: "4",
      RUNTIME_POLL_INTERVAL_MS: "200",
      RUNTIME_HEARTBEAT_MS: "1000",
      RUNTIME_BACKOFF_BASE_MS: "100",
      RUNTIME_BACKOFF_MAX_MS: "1000",
      ...opts.env,
    } as unknown as NodeJS.ProcessEnv,
  });
  const events: RuntimeEvent[] = [];
  let stderr = "";
  let buffered = "";
  child.stdout.on("data", (b: Buffer) => {
    buffered += b.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
  });
  child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-10_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    instanceId,
    events,
    exited,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: (signal: NodeJS.Signals = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    count: (event: string) => events.filter((e) => e.event === event).length,
  };
}

export type RuntimeProcess = ReturnType<typeof spawnRuntime>;

/**
 * `n` Runtimes on `apiUrl` with the local provider, the i-th taking `delayMs + i * 100` ms a job (so
 * they do not move in step), each running up to `concurrency` jobs at once.
 */
export function spawnRuntimes(
  n: number,
  opts: { apiUrl: string; apiKey: string; delayMs: number; concurrency: number },
): RuntimeProcess[] {
  return Array.from({ length: n }, (_, i) =>
    spawnRuntime({
      apiUrl: opts.apiUrl,
      apiKey: opts.apiKey,
      env: { RUNTIME_LOCAL_DELAY_MS: String(opts.delayMs + i * 100), RUNTIME_CONCURRENCY: String(opts.concurrency) },
    }),
  );
}
