import { RESULT_LIMITS, resultRequest, usageSchema, type Usage } from "../server/runtime-api/contract";
import type { PipelineResult } from "../server/pipeline/run-pipeline";
import type { ApiError } from "./api-client";

export type ResultBody = {
  attemptNo: number;
  output: Record<string, unknown>;
  outputSchemaVersion: string;
  promptVersion: string;
  modelProvider: string;
  modelName: string;
  usage?: Usage;
  latencyMs: number;
  degraded: boolean;
};

/**
 * The result request as the API will accept it, or why it cannot be. Metadata (model name,
 * provider, prompt version) is clipped to the API's published field lengths: a long model name
 * must not cost a good answer. The output itself is never altered: if the whole request is over
 * the API's body limit, or the contract refuses it, the answer cannot be stored and the attempt
 * fails INVALID_SCHEMA at once, without waiting out the lease.
 */
export function resultBody(
  attemptNo: number,
  r: PipelineResult,
  runtimeInstanceId: string,
  maxBodyBytes: number,
): { ok: true; body: ResultBody } | { ok: false; reason: string } {
  const body: ResultBody = {
    attemptNo,
    output: r.output,
    outputSchemaVersion: r.outputSchemaVersion,
    promptVersion: r.promptVersion.slice(0, RESULT_LIMITS.promptVersion),
    modelProvider: r.provider.slice(0, RESULT_LIMITS.modelProvider),
    modelName: r.model.slice(0, RESULT_LIMITS.modelName),
    usage: cleanUsage(r.usage),
    latencyMs: Math.min(86_400_000, Math.max(0, Math.round(r.latencyMs))),
    degraded: r.degraded,
  };
  const bytes = Buffer.byteLength(JSON.stringify({ runtimeInstanceId, ...body }));
  if (bytes > maxBodyBytes) {
    return {
      ok: false,
      reason: `the result is ${bytes} bytes, over the API's ${maxBodyBytes}-byte limit: it cannot be stored`,
    };
  }
  const checked = resultRequest.safeParse({ runtimeInstanceId, ...body });
  if (!checked.success) {
    const issues = checked.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".")}: ${i.message}`)
      .join("; ");
    return { ok: false, reason: `the result does not match the API's contract: ${issues}` };
  }
  return { ok: true, body };
}

/** Usage as the contract accepts it, or none: a usage report must never cost a result or a failure. */
export function cleanUsage(usage: Usage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const clipped = {
    ...usage,
    provider: usage.provider?.slice(0, RESULT_LIMITS.modelProvider),
    model: usage.model?.slice(0, RESULT_LIMITS.modelName),
    durationMs: usage.durationMs === undefined ? undefined : Math.min(86_400_000, Math.round(usage.durationMs)),
  };
  const parsed = usageSchema.safeParse(clipped);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What a refused result means. The API already ended the job for 422 (INVALID_SCHEMA), a cancel
 * (JOB_CANCELLED), a lost lease or an existing result; any other refusal (413, 400) leaves the
 * attempt open, so the Runtime must end it itself with INVALID_SCHEMA and the API's reason.
 */
export function refusalNeedsFail(e: ApiError): boolean {
  if (e.transient || e.status === null) return false;
  return ![
    "INVALID_SCHEMA",
    "JOB_CANCELLED",
    "LOCK_LOST",
    "RESULT_ALREADY_EXISTS",
    "JOB_NOT_FOUND",
    "UNAUTHORIZED",
  ].includes(e.code);
}
