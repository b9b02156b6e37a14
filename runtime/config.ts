import fs from "node:fs";
import os from "node:os";
import { z } from "zod";
import { JOB_TYPES } from "../server/jobs/constants";
import { jobTypeSchema } from "../server/jobs/schemas";
import { RESULT_LIMITS, runtimeInstanceId } from "../server/runtime-api/contract";
import { DEEPSEEK_DEFAULTS } from "../server/providers/deepseek";

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** Every setting comes from the environment (names in docs/protocol.md, "The reference Runtime and the pipeline"). */
const envSchema = z.object({
  RUNTIME_API_URL: z.url().default("http://localhost:3000"),
  RUNTIME_API_KEY: z.string().min(1).optional(),
  RUNTIME_API_KEY_FILE: z.string().min(1).optional(),
  RUNTIME_INSTANCE_ID: runtimeInstanceId.optional(),
  RUNTIME_CAPABILITIES: z.string().default(JOB_TYPES.join(",")),
  RUNTIME_CONCURRENCY: int(4, 1),
  /** auto: DeepSeek when a platform key is set, else local; learners' own keys always go to DeepSeek. */
  RUNTIME_PROVIDER: z.enum(["auto", "local", "deepseek"]).default("auto"),
  /** Overrides the API's pollIntervalMs (the wait when there is nothing to do). */
  RUNTIME_POLL_INTERVAL_MS: z.coerce.number().int().min(10).optional(),
  /** Long poll: an idle Runtime's poll is held this long by the API (0 turns it off; at most 20 s). */
  RUNTIME_WAIT_MS: z.coerce.number().int().min(0).max(20_000).default(20_000),
  /** 15–20 s by default: the interval is this plus up to a third more, so Runtimes do not beat in step. */
  RUNTIME_HEARTBEAT_MS: int(15_000, 50),
  RUNTIME_SHUTDOWN_GRACE_MS: int(25_000),
  RUNTIME_BACKOFF_BASE_MS: int(500, 1),
  RUNTIME_BACKOFF_MAX_MS: int(30_000, 1),
  RUNTIME_REQUEST_TIMEOUT_MS: int(15_000, 100),
  /** How long a result or failure is re-sent while the API is unreachable (the lease runs out anyway). */
  RUNTIME_DELIVERY_DEADLINE_MS: int(180_000, 1),
  RUNTIME_LOCAL_DELAY_MS: int(0),
  /** The API's result body limit (its RUNTIME_MAX_BODY_BYTES, published in the OpenAPI document): checked before submitting. */
  RUNTIME_MAX_RESULT_BYTES: int(RESULT_LIMITS.maxBodyBytes, 1024),
  DEEPSEEK_API_KEY: z.string().min(1).optional(),
  DEEPSEEK_BASE_URL: z.url().default(DEEPSEEK_DEFAULTS.baseURL),
  DEEPSEEK_MODEL: z.string().min(1).optional(),
  DEEPSEEK_TIMEOUT_MS: int(DEEPSEEK_DEFAULTS.timeoutMs, 100),
  /** Cap on one model answer; a larger one is cut off and fails INVALID_SCHEMA. */
  DEEPSEEK_MAX_RESPONSE_BYTES: int(DEEPSEEK_DEFAULTS.maxResponseBytes, 1024),
  /** OpenTelemetry (runtime/tracing.ts): traces go to this OTLP/HTTP collector; unset (both): no traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
});

export type RuntimeConfig = ReturnType<typeof loadConfig>;

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ""));
  const e = envSchema.parse(cleaned);
  const apiKey =
    e.RUNTIME_API_KEY ?? (e.RUNTIME_API_KEY_FILE ? fs.readFileSync(e.RUNTIME_API_KEY_FILE, "utf8").trim() : undefined);
  if (!apiKey) throw new Error("set RUNTIME_API_KEY (or RUNTIME_API_KEY_FILE): a Runtime API key created by an admin");
  if (e.RUNTIME_PROVIDER === "deepseek" && !e.DEEPSEEK_API_KEY)
    throw new Error("RUNTIME_PROVIDER=deepseek needs DEEPSEEK_API_KEY");
  const capabilities = z
    .array(jobTypeSchema)
    .min(1)
    .parse(
      e.RUNTIME_CAPABILITIES.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
  return {
    apiUrl: e.RUNTIME_API_URL.replace(/\/+$/, ""),
    apiKey,
    instanceId:
      e.RUNTIME_INSTANCE_ID ?? `${os.hostname()}-${process.pid}`.replace(/[^A-Za-z0-9._:@-]/g, "-").slice(0, 128),
    capabilities,
    concurrency: e.RUNTIME_CONCURRENCY,
    provider: e.RUNTIME_PROVIDER,
    pollIntervalMs: e.RUNTIME_POLL_INTERVAL_MS,
    waitMs: e.RUNTIME_WAIT_MS,
    heartbeatMs: e.RUNTIME_HEARTBEAT_MS,
    shutdownGraceMs: e.RUNTIME_SHUTDOWN_GRACE_MS,
    backoffBaseMs: e.RUNTIME_BACKOFF_BASE_MS,
    backoffMaxMs: e.RUNTIME_BACKOFF_MAX_MS,
    requestTimeoutMs: e.RUNTIME_REQUEST_TIMEOUT_MS,
    deliveryDeadlineMs: e.RUNTIME_DELIVERY_DEADLINE_MS,
    localDelayMs: e.RUNTIME_LOCAL_DELAY_MS,
    maxResultBytes: e.RUNTIME_MAX_RESULT_BYTES,
    deepseek: {
      apiKey: e.DEEPSEEK_API_KEY,
      baseURL: e.DEEPSEEK_BASE_URL,
      model: e.DEEPSEEK_MODEL,
      timeoutMs: e.DEEPSEEK_TIMEOUT_MS,
      maxResponseBytes: e.DEEPSEEK_MAX_RESPONSE_BYTES,
    },
  };
}
