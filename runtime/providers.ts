import type { LeasedJob } from "../server/runtime-api/contract";
import { deepseekProvider } from "../server/providers/deepseek";
import { localProvider } from "../server/providers/local";
import type { Provider } from "../server/providers/types";
import type { RuntimeConfig } from "./config";

/**
 * The provider for one job. A learner who chose their own DeepSeek key gets DeepSeek with that
 * key (handed only to the lease holder), unless this Runtime is pinned to `local`. Platform-key
 * jobs use DeepSeek when the Runtime has a platform key (or is pinned to it), else the local analyzer.
 */
export function providerFor(job: LeasedJob, config: RuntimeConfig): Provider {
  if (config.provider === "local") return localProvider({ delayMs: config.localDelayMs });
  const model = config.deepseek.model ?? (job.model.provider === "deepseek" ? job.model.name : undefined);
  const deepseek = (apiKey: string | undefined) =>
    deepseekProvider({ apiKey, baseURL: config.deepseek.baseURL, model, timeoutMs: config.deepseek.timeoutMs });
  if (job.model.apiKeyMode === "user_deepseek_key") return deepseek(job.model.apiKey);
  if (config.provider === "deepseek" || config.deepseek.apiKey) return deepseek(config.deepseek.apiKey);
  return localProvider({ delayMs: config.localDelayMs });
}
