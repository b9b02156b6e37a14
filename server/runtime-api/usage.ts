import { z } from "zod";

/** The longest provider and model names the API stores (a leaf: the pipeline and the contract read it). */
export const USAGE_LIMITS = { provider: 64, model: 128 } as const;

/**
 * docs/contract.md#the-runtime-protocol usage of one attempt: every model call of the attempt summed (quality loops included).
 * Accepted on result and on fail, stored per attempt for cost accounting. Unknown keys are dropped.
 */
export const usageSchema = z.object({
  provider: z.string().max(USAGE_LIMITS.provider).optional(),
  model: z.string().max(USAGE_LIMITS.model).optional(),
  promptTokens: z.number().int().min(0).max(1_000_000_000).optional(),
  completionTokens: z.number().int().min(0).max(1_000_000_000).optional(),
  /** Of promptTokens, those the provider served from its prompt cache (DeepSeek: prompt_cache_hit_tokens), and the rest. */
  cacheHitTokens: z.number().int().min(0).max(1_000_000_000).optional(),
  cacheMissTokens: z.number().int().min(0).max(1_000_000_000).optional(),
  durationMs: z.number().int().min(0).max(86_400_000).optional(),
});
export type Usage = z.infer<typeof usageSchema>;
