import { deepseekProvider } from "./deepseek";
import { localProvider } from "./local";
import type { Provider } from "./types";

export type ProviderSettings = {
  /** auto: DeepSeek when a platform key is configured, else the local analyzer. */
  provider: "auto" | "local" | "deepseek";
  localDelayMs: number;
  deepseek: { apiKey?: string; baseURL?: string; model?: string; timeoutMs?: number; maxResponseBytes?: number };
};

export type JobModel = {
  provider: string;
  name: string;
  apiKeyMode: "platform_key" | "user_deepseek_key";
  apiKey?: string;
};

/**
 * The provider for one job, for every executor (reference Runtime, Inngest worker). A learner who
 * chose their own DeepSeek key gets DeepSeek with that key (handed only to the lease holder),
 * unless the executor is pinned to `local`. Platform-key jobs use DeepSeek when the executor has a
 * platform key (or is pinned to it), else the local analyzer.
 */
export function selectProvider(model: JobModel, s: ProviderSettings): Provider {
  if (s.provider === "local") return localProvider({ delayMs: s.localDelayMs });
  const name = s.deepseek.model ?? (model.provider === "deepseek" ? model.name : undefined);
  const deepseek = (apiKey: string | undefined) =>
    deepseekProvider({
      apiKey,
      baseURL: s.deepseek.baseURL,
      model: name,
      timeoutMs: s.deepseek.timeoutMs,
      maxResponseBytes: s.deepseek.maxResponseBytes,
    });
  if (model.apiKeyMode === "user_deepseek_key") return deepseek(model.apiKey);
  if (s.provider === "deepseek" || s.deepseek.apiKey) return deepseek(s.deepseek.apiKey);
  return localProvider({ delayMs: s.localDelayMs });
}
