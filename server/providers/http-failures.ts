import { JobFailure } from "../pipeline/errors";

/** The failure code (docs/contract.md#the-runtime-protocol) of a provider's HTTP error status. */
export function classifyStatus(status: number, message: string, retryAfter?: number): JobFailure {
  const detail = `DeepSeek answered ${status}: ${message}`.slice(0, 500);
  if (status === 401 || status === 403) return new JobFailure("INVALID_CREDENTIAL", detail);
  // DeepSeek's "insufficient balance": the key works but cannot pay; retrying will not help.
  if (status === 402) return new JobFailure("INVALID_CREDENTIAL", detail);
  if (status === 408) return new JobFailure("MODEL_TIMEOUT", detail);
  if (status === 429) return new JobFailure("MODEL_RATE_LIMIT", detail, retryAfter);
  if (status === 503) return new JobFailure("TEMPORARY_PROVIDER_ERROR", detail, retryAfter);
  if (status >= 500) return new JobFailure("TEMPORARY_PROVIDER_ERROR", detail);
  // Other 4xx (and odd statuses): the request itself is refused (unknown model, too long); the same request would be again.
  if (status >= 400) return new JobFailure("INVALID_SCHEMA", detail);
  return new JobFailure("TEMPORARY_PROVIDER_ERROR", detail);
}

/** A failure of the connection itself: refused, reset (before headers or mid-body), DNS. */
export function classifyTransport(e: unknown, phase: "headers" | "body"): JobFailure {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
  const where = phase === "body" ? "while sending its answer" : "before answering";
  return new JobFailure("NETWORK_ERROR", `the connection to DeepSeek failed ${where}: ${cause}`);
}

/**
 * Retry-After (seconds or an HTTP date; OpenAI's retry-after-ms too) in ms, or undefined when
 * absent or unreadable. Capped at a day; the API caps it further at its backoff cap.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return clamp(Number(ms));
  const raw = headers.get("retry-after")?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return clamp(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : clamp(at - now);
}

const clamp = (ms: number) => Math.min(86_400_000, Math.max(0, Math.round(ms)));
