import { costConfig } from "../config";

/**
 * Estimated cost of some tokens at the configured prices (per million tokens, in
 * costConfig.currency). An estimate from what the Runtimes report, not the provider's invoice.
 */
export function estimateCost(promptTokens: number, completionTokens: number): number {
  return (
    (promptTokens * costConfig.pricePromptPerMTok + completionTokens * costConfig.priceCompletionPerMTok) / 1_000_000
  );
}
