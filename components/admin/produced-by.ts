/** Who made a job's stored result: the offline analyzer (no model called) or the model that answered. */
export function producedBy(
  result: { modelProvider: string | null; modelName: string | null } | null | undefined,
): string {
  if (!result) return "— (no result yet)";
  if (result.modelProvider === "local") return "Offline analyzer (no model called)";
  return `Model: ${result.modelProvider ?? "?"} / ${result.modelName ?? "?"}`;
}
