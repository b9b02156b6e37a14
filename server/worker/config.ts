import { providerConfig } from "../config";
import type { ProviderSettings } from "../providers/select";
import { setting } from "../config";

/**
 * Which jobs the in-app Inngest worker takes: INNGEST_WORKER_JOB_TYPES, a comma list of job types
 * or "*" (default: none — external Runtimes do the work). Runtimes whose capabilities include the
 * same types race it safely through the lock; leave those types out of their capabilities to
 * route the types to the worker alone.
 */
export function workerJobTypes(): Set<string> | "all" {
  const raw = setting("INNGEST_WORKER_JOB_TYPES").trim();
  if (raw === "*") return "all";
  return new Set(
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export function workerTakes(jobType: string) {
  const types = workerJobTypes();
  return types === "all" || types.has(jobType);
}

/** The worker is one Runtime instance as far as leases go: it locks, heartbeats and submits under this id. */
export const workerInstanceId = () => setting("INNGEST_WORKER_ID");

export function workerProviderSettings(): ProviderSettings {
  return {
    provider: setting("INNGEST_WORKER_PROVIDER"),
    localDelayMs: setting("INNGEST_WORKER_LOCAL_DELAY_MS"),
    deepseek: {
      apiKey: setting("DEEPSEEK_API_KEY"),
      baseURL: setting("DEEPSEEK_BASE_URL"),
      model: setting("DEEPSEEK_MODEL"),
      timeoutMs: setting("DEEPSEEK_TIMEOUT_MS"),
      maxResponseBytes: providerConfig.deepseekMaxResponseBytes,
    },
  };
}
