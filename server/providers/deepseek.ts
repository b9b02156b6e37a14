import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai";
import { JobFailure } from "../pipeline/errors";
import type { InferenceRequest, InferenceResult, Provider } from "./types";

export const DEEPSEEK_DEFAULTS = { baseURL: "https://api.deepseek.com", model: "deepseek-chat", timeoutMs: 60_000 };

export type DeepSeekOptions = {
  /** The platform key, or the learner's own key from the lock response (user_deepseek_key jobs). */
  apiKey: string | undefined;
  baseURL?: string;
  model?: string;
  /** Per model call; a call that takes longer fails MODEL_TIMEOUT and the job is retried later. */
  timeoutMs?: number;
  maxTokens?: number;
};

/**
 * DeepSeek through its OpenAI-compatible chat completions API, in JSON output mode. The client
 * never retries by itself (maxRetries 0): a failed call fails the attempt with a classified code
 * and the job engine's backoff decides when it runs again, so one slow provider cannot hold a lease.
 */
export function deepseekProvider(opts: DeepSeekOptions): Provider {
  const model = opts.model || DEEPSEEK_DEFAULTS.model;
  const timeout = opts.timeoutMs ?? DEEPSEEK_DEFAULTS.timeoutMs;
  const client = opts.apiKey
    ? new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL || DEEPSEEK_DEFAULTS.baseURL, timeout, maxRetries: 0 })
    : null;
  return {
    name: "deepseek",
    async infer(req: InferenceRequest): Promise<InferenceResult> {
      if (!client) throw new JobFailure("INVALID_CREDENTIAL", "no DeepSeek API key: set DEEPSEEK_API_KEY or store the learner's key");
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create(
          {
            model,
            messages: [
              { role: "system", content: req.prompt.system },
              { role: "user", content: req.prompt.user },
            ],
            response_format: { type: "json_object" },
            temperature: 0.2,
            ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
          },
          { signal: req.signal, timeout },
        );
      } catch (e) {
        throw classify(e, req.signal);
      }
      const choice = completion.choices[0];
      const text = choice?.message?.content ?? "";
      const usage = completion.usage
        ? { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens, totalTokens: completion.usage.total_tokens }
        : undefined;
      const base = { provider: "deepseek", model: completion.model || model, usage };
      const parsed = parseObject(text, choice?.finish_reason);
      return "error" in parsed ? { ...base, output: text, parseError: parsed.error } : { ...base, output: parsed.value };
    },
  };
}

function parseObject(text: string, finishReason: string | undefined): { value: unknown } | { error: string } {
  if (!text.trim()) return { error: "the answer was empty; answer with one JSON object" };
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return { value };
    return { error: "the answer must be one JSON object, not an array or a bare value" };
  } catch (e) {
    const cut = finishReason === "length" ? " (it was cut off at the token limit: answer more briefly)" : "";
    return { error: `the answer was not valid JSON${cut}: ${(e as Error).message}` };
  }
}

/** The seed's failure codes for what can go wrong in a model call (issue 3's table). */
export function classify(e: unknown, signal?: AbortSignal): unknown {
  // Cancelled or shutting down: the caller's reason, not a provider failure.
  if (e instanceof APIUserAbortError || signal?.aborted) return signal?.reason ?? e;
  if (e instanceof APIConnectionTimeoutError) return new JobFailure("MODEL_TIMEOUT", "DeepSeek did not answer in time");
  if (e instanceof APIConnectionError) {
    return new JobFailure("NETWORK_ERROR", `cannot reach DeepSeek: ${causeOf(e)}`);
  }
  if (e instanceof APIError && typeof e.status === "number") {
    const detail = `DeepSeek answered ${e.status}: ${e.message}`.slice(0, 500);
    if (e.status === 401 || e.status === 403) return new JobFailure("INVALID_CREDENTIAL", detail);
    // DeepSeek's "insufficient balance": the key works but cannot pay; retrying will not help.
    if (e.status === 402) return new JobFailure("INVALID_CREDENTIAL", detail);
    if (e.status === 408) return new JobFailure("MODEL_TIMEOUT", detail);
    if (e.status === 429) return new JobFailure("MODEL_RATE_LIMIT", detail);
    if (e.status >= 500) return new JobFailure("TEMPORARY_PROVIDER_ERROR", detail);
    // Other 4xx: the request itself is refused (unknown model, too long); the same request would be again.
    return new JobFailure("INVALID_SCHEMA", detail);
  }
  return new JobFailure("TEMPORARY_PROVIDER_ERROR", `DeepSeek call failed: ${(e as Error)?.message ?? String(e)}`);
}

function causeOf(e: Error) {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? e.message;
}
