import { loadConfig } from "@/runtime/config";
import { createLogger } from "@/runtime/log";
import { createRuntime } from "@/runtime/runtime";
import { uid } from "../helpers/factories";

export type LogEvent = { event: string; jobId?: string; [k: string]: unknown };

/** An in-process reference Runtime with fast timings, its log lines collected for assertions. */
export function startTestRuntime(apiUrl: string, key: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    RUNTIME_API_URL: apiUrl,
    RUNTIME_API_KEY: key,
    RUNTIME_INSTANCE_ID: uid("rt"),
    RUNTIME_PROVIDER: "local",
    RUNTIME_CONCURRENCY: "8",
    RUNTIME_POLL_INTERVAL_MS: "50",
    RUNTIME_HEARTBEAT_MS: "150",
    RUNTIME_BACKOFF_BASE_MS: "20",
    RUNTIME_BACKOFF_MAX_MS: "160",
    RUNTIME_REQUEST_TIMEOUT_MS: "5000",
    ...env,
  });
  const events: LogEvent[] = [];
  const log = createLogger({ runtimeInstanceId: config.instanceId }, (line) => events.push(JSON.parse(line)));
  const runtime = createRuntime(config, { log });
  return {
    runtime,
    events,
    config,
    has: (event: string, jobId?: string) => events.find((e) => e.event === event && (!jobId || e.jobId === jobId)),
  };
}
