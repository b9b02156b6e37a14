import { JobFailure } from "../pipeline/errors";
import type { Usage } from "../runtime-api/contract";
import { RESULT_LIMITS } from "../runtime-api/contract";
import { readTextWithin } from "../read-within";
import { classifyStatus, classifyTransport, retryAfterMs } from "./http-failures";
import type { InferenceRequest, InferenceResult, Provider } from "./types";

export const DEEPSEEK_DEFAULTS = {
  baseURL: "https://api.deepseek.com",
  model: "deepseek-chat",
  timeoutMs: 60_000,
  /** DeepSeek's largest answer (8K tokens) is ~40 KB; far above that the provider is broken. */
  maxResponseBytes: 1024 * 1024,
};

/**
 * An error answer's body is read only for its message: at most this many bytes, and for at most
 * ERROR_BODY_WAIT_MS (within the call's deadline). A proxy's 2 MiB page, or one that declares a
 * gigabyte and then stalls, is cut there; the status alone decides the failure and its retry.
 */
const ERROR_BODY_BYTES = 8 * 1024;
const ERROR_BODY_WAIT_MS = 1000;

export type DeepSeekOptions = {
  /** The platform key, or the learner's own key from the lock response (user_deepseek_key jobs). */
  apiKey: string | undefined;
  baseURL?: string;
  model?: string;
  /** One deadline per model call covering connect, headers and body; past it → MODEL_TIMEOUT. */
  timeoutMs?: number;
  /** Answers larger than this are cut off and fail INVALID_SCHEMA (they could never be stored). */
  maxResponseBytes?: number;
  maxTokens?: number;
};

/**
 * DeepSeek through its OpenAI-compatible chat completions API, in JSON output mode, over plain
 * fetch so that one deadline bounds the whole call (a stalled body included) and the answer's
 * size is capped while it streams in. It never retries by itself: a failed call fails the
 * attempt with a classified code and the job engine's backoff (raised to the provider's
 * Retry-After) decides when it runs again, so one slow provider cannot hold a lease.
 */
export function deepseekProvider(opts: DeepSeekOptions): Provider {
  const model = opts.model || DEEPSEEK_DEFAULTS.model;
  const timeoutMs = opts.timeoutMs ?? DEEPSEEK_DEFAULTS.timeoutMs;
  const maxBytes = opts.maxResponseBytes ?? DEEPSEEK_DEFAULTS.maxResponseBytes;
  const url = `${(opts.baseURL || DEEPSEEK_DEFAULTS.baseURL).replace(/\/+$/, "")}/chat/completions`;
  return {
    name: "deepseek",
    async infer(req: InferenceRequest): Promise<InferenceResult> {
      if (!opts.apiKey)
        throw new JobFailure(
          "INVALID_CREDENTIAL",
          "no DeepSeek API key: set DEEPSEEK_API_KEY or store the learner's key",
        );
      const body = JSON.stringify({
        model,
        messages: [
          { role: "system", content: req.prompt.system },
          { role: "user", content: req.prompt.user },
        ],
        response_format: { type: "json_object" },
        temperature: 0.2,
        ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
      });
      const answer = await post(url, opts.apiKey, body, { timeoutMs, maxBytes, signal: req.signal });
      if (answer.status < 200 || answer.status > 299) {
        throw classifyStatus(answer.status, errorMessage(answer.text), retryAfterMs(answer.headers));
      }
      return readCompletion(answer.text, model);
    },
  };
}

type Answer = { status: number; headers: Headers; text: string };

/** One POST under one deadline (connect, headers and body) with the body capped at maxBytes. */
async function post(
  url: string,
  apiKey: string,
  body: string,
  o: { timeoutMs: number; maxBytes: number; signal?: AbortSignal },
): Promise<Answer> {
  o.signal?.throwIfAborted();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), o.timeoutMs);
  const onAbort = () => deadline.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  let phase: "headers" | "body" = "headers";
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json" },
      body,
      signal: deadline.signal,
    });
    phase = "body";
    // The status first: an error answer's body is only its message, never a reason to fail otherwise.
    if (res.status < 200 || res.status > 299)
      return { status: res.status, headers: res.headers, text: await readHead(res.body, ERROR_BODY_BYTES) };
    return { status: res.status, headers: res.headers, text: await readCapped(res, o.maxBytes) };
  } catch (e) {
    // Cancelled or shutting down: the caller's reason, not a provider failure.
    if (o.signal?.aborted) throw o.signal.reason;
    if (e instanceof JobFailure) throw e;
    if (deadline.signal.aborted) {
      throw new JobFailure(
        "MODEL_TIMEOUT",
        `DeepSeek sent no complete answer within ${o.timeoutMs} ms (stalled while waiting for the ${phase})`,
      );
    }
    throw classifyTransport(e, phase);
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  }
}

/** Reads the body as text, giving up (and closing the connection) as soon as it passes maxBytes. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const text = await readTextWithin(res.body, maxBytes, { declaredLength: res.headers.get("content-length") });
  if (text === null)
    throw new JobFailure(
      "INVALID_SCHEMA",
      `DeepSeek's answer is over the ${maxBytes}-byte cap (DEEPSEEK_MAX_RESPONSE_BYTES): it could not be stored`,
    );
  return text;
}

/**
 * The start of an error answer's body: up to `limit` bytes, whatever arrived within
 * ERROR_BODY_WAIT_MS, or what came before the connection failed. Never throws; the rest is not read.
 */
async function readHead(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ERROR_BODY_WAIT_MS)));
  try {
    while (size < limit) {
      const next = await Promise.race([reader.read(), waited]);
      if (!next || next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch {
    // reset or aborted mid-page: what arrived is the message
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

/** The `message` of an OpenAI-style error body, or the start of whatever came instead. */
function errorMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof json?.error?.message === "string") return json.error.message;
  } catch {
    // not JSON: a proxy's page, say
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 200) || "(empty body)";
}

/** A 2xx body as a chat completion; anything else is the provider's fault, classified, never a TypeError. */
function readCompletion(text: string, requested: string): InferenceResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const what = /^\s*</.test(text)
      ? "an HTML page"
      : text.trim()
        ? `truncated or invalid JSON (${(e as Error).message})`
        : "an empty body";
    throw new JobFailure("TEMPORARY_PROVIDER_ERROR", `DeepSeek answered 200 with ${what} instead of a chat completion`);
  }
  const completion = (json && typeof json === "object" ? json : {}) as {
    model?: unknown;
    choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
    usage?: Record<string, unknown>;
  };
  const model =
    typeof completion.model === "string" && completion.model
      ? completion.model.slice(0, RESULT_LIMITS.modelName)
      : requested;
  const usage: Usage = { provider: "deepseek", model, ...tokens(completion.usage) };
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice || typeof choice !== "object") {
    const failure = new JobFailure(
      "TEMPORARY_PROVIDER_ERROR",
      "DeepSeek answered 200 without a choice (choices is empty or missing)",
    );
    failure.usage = usage;
    throw failure;
  }
  const content = choice.message?.content;
  const out = typeof content === "string" ? content : "";
  const base = { provider: "deepseek", model, usage };
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : undefined;
  const parsed = parseObject(out, finish);
  return "error" in parsed ? { ...base, output: out, parseError: parsed.error } : { ...base, output: parsed.value };
}

/** Token counts as non-negative integers; odd values (strings, negatives, NaN) are dropped, not trusted. */
type Counts = Pick<Usage, "promptTokens" | "completionTokens" | "cacheHitTokens" | "cacheMissTokens">;
function tokens(usage: Record<string, unknown> | undefined): Counts {
  const count = (v: unknown) => {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() ? Number(v) : NaN;
    return Number.isFinite(n) && n >= 0 && n <= 1_000_000_000 ? Math.round(n) : undefined;
  };
  if (!usage || typeof usage !== "object") return {};
  const out: Counts = {};
  const p = count(usage.prompt_tokens);
  const c = count(usage.completion_tokens);
  // DeepSeek's context cache: the prompt's tokens served from the cache and the rest.
  const hit = count(usage.prompt_cache_hit_tokens);
  const miss = count(usage.prompt_cache_miss_tokens);
  if (p !== undefined) out.promptTokens = p;
  if (c !== undefined) out.completionTokens = c;
  if (hit !== undefined) out.cacheHitTokens = p === undefined ? hit : Math.min(hit, p);
  if (miss !== undefined) out.cacheMissTokens = miss;
  return out;
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
