/** Bounds on a rejection a Runtime reports with fail (the Runtime contract checks them on fail and publishes them in the OpenAPI document's x-runtime-limits). */
export const REJECTION_LIMITS = {
  /** Stored up to this many bytes of JSON text, then cut and marked truncated (the 422 path's cap too). */
  outputBytes: 64 * 1024,
  /** Nesting of rejectedOutput: model outputs nest a handful of levels; thousands would only cost stack. */
  outputDepth: 64,
  violations: 50,
  path: 256,
  rule: 64,
  message: 500,
} as const;
