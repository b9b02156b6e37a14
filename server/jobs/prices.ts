import { costConfig } from "../config";

/**
 * Estimated cost of some tokens at the configured prices (per million tokens, in
 * costConfig.currency): prompt tokens the provider served from its prompt cache at the cache-hit
 * price, the other prompt tokens at the prompt price. An estimate from what the Runtimes report,
 * not the provider's invoice.
 */
export function estimateCost(promptTokens: number, completionTokens: number, cacheHitTokens = 0): number {
  const hit = Math.min(cacheHitTokens, promptTokens);
  return (
    ((promptTokens - hit) * costConfig.pricePromptPerMTok +
      hit * costConfig.pricePromptCacheHitPerMTok +
      completionTokens * costConfig.priceCompletionPerMTok) /
    1_000_000
  );
}

/** What the cache hits saved: the same tokens at the full prompt price, less what they cost. */
export function cacheSavings(cacheHitTokens: number): number {
  return (cacheHitTokens * (costConfig.pricePromptPerMTok - costConfig.pricePromptCacheHitPerMTok)) / 1_000_000;
}
