import { providerConfig } from "../config";
import type { ProviderSettings } from "../providers/select";

/**
 * Which jobs the in-app Inngest worker takes: INNGEST_WORKER_JOB_TYPES, a comma list of job types
 * or "*" (default: none — external Runtimes do the work). Runtimes whose capabilities include the
 * same types race it safely through the lock; leave those types out of their capabilities to
 * route the types to the worker alone.
 */
export function workerJobTypes(): Set<string> | "all" {
  const raw = (process.env.INNGEST_WORKER_JOB_TYPES ?? "").trim();
  if (raw === "*") return "all";
  return new Set(raw.split(",").map((s) => s.trim()).filter(Boolean));
}

export function workerTakes(jobType: string) {
  const types = workerJobTypes();
  return types === "all" || types.has(jobType);
}

/** The worker is one Runtime instance as far as leases go: it locks, heartbeats and submits under this id. */
export const workerInstanceId = () => process.env.INNGEST_WORKER_ID ?? "inngest-worker";

export function workerProviderSettings(): ProviderSettings {
  const provider = process.env.INNGEST_WORKER_PROVIDER;
  return {
    provider: provider === "local" || provider === "deepseek" ? provider : "auto",
    localDelayMs: Number(process.env.INNGEST_WORKER_LOCAL_DELAY_MS ?? 0),
    deepseek: {
      apiKey: process.env.DEEPSEEK_API_KEY || undefined,
      baseURL: process.env.DEEPSEEK_BASE_URL || undefined,
      model: process.env.DEEPSEEK_MODEL || undefined,
      timeoutMs: process.env.DEEPSEEK_TIMEOUT_MS ? Number(process.env.DEEPSEEK_TIMEOUT_MS) : undefined,
      maxResponseBytes: providerConfig.deepseekMaxResponseBytes,
    },
  };
}
