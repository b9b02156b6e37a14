import { setting } from "../config";
import { AppError, isAppError, isDatabaseUnavailable, unavailable } from "../errors";
import { verifyRuntimeKey } from "../runtime-keys";
import { touchRuntimeInstance } from "../runtime-instances";
import { metrics } from "../observability/metrics";
import { ENDPOINTS, type EndpointName } from "./endpoints";
import { jobId as jobIdSchema } from "./contract";
import { refuseDeepJson } from "../security/json-depth";
import { traceTag } from "../observability/tracing";
import { takeRuntimeCall } from "./caps";
import { deprecationHeaders, protocolLabel, protocolMajor, PROTOCOL_MAJORS, type ProtocolMajor } from "./protocol";

export { ENDPOINTS, type EndpointName };

export const MAX_BODY_BYTES = setting("RUNTIME_MAX_BODY_BYTES");

export type RuntimeRequest = {
  method: string;
  /** The path below /internal/runtime/jobs/: ["poll"] or [jobId, action]. */
  path: string[];
  authorization: string | null;
  contentType: string | null;
  /** The Runtime-Protocol header: the protocol major the Runtime speaks (none: the previous one, server/runtime-api/protocol.ts). */
  protocol?: string | null;
  /**
   * The raw body, or how to read it: a door passes a reader, called only once the Runtime key is
   * verified, so an unknown caller's body is never read; it refuses a body over MAX_BODY_BYTES.
   */
  body: string | (() => Promise<string>);
  /** Aborted when the client goes away: frees a long poll's waiter. */
  signal?: AbortSignal;
};
export type RuntimeResponse = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * Every Runtime request, whatever carries it (the Next route, a test's HTTP server, an in-process
 * call): route → bearer key → JSON → zod → domain call. Errors leave as
 * {"error": {code, message, details}} with the status of their code; anything unexpected is
 * logged and answered 500 (503 when the database is unreachable) without internals.
 */
export async function dispatch(req: RuntimeRequest): Promise<RuntimeResponse> {
  const started = performance.now();
  const { name, jobId } = route(req.path);
  const major = protocolMajor(req.protocol);
  const res = major ? await handle(name, jobId, req, major) : unsupportedProtocol();
  if (major) res.headers = { ...res.headers, ...deprecationHeaders(major) };
  metrics().httpDuration.observe(
    { endpoint: name ?? "unknown", status: String(res.status) },
    (performance.now() - started) / 1000,
  );
  return res;
}

/** Whether an endpoint's path names a job (/{jobId}/lock) or not (/poll, /results). */
const takesJob = (name: EndpointName) => ENDPOINTS[name].path.includes("{jobId}");

function route(path: string[]): { name?: EndpointName; jobId: string } {
  const [first, second] = path;
  if (path.length === 1 && Object.hasOwn(ENDPOINTS, first!) && !takesJob(first as EndpointName))
    return { name: first as EndpointName, jobId: "" };
  if (path.length === 2 && Object.hasOwn(ENDPOINTS, second!) && takesJob(second as EndpointName))
    return { name: second as EndpointName, jobId: first! };
  return { jobId: "" };
}

function unsupportedProtocol(): RuntimeResponse {
  return errorAnswer(
    new AppError("UNSUPPORTED_PROTOCOL_VERSION", "the Runtime-Protocol header names a major this app does not serve", {
      supported: Object.keys(PROTOCOL_MAJORS),
    }),
  );
}

async function handle(
  name: EndpointName | undefined,
  jobId: string,
  req: RuntimeRequest,
  protocol: ProtocolMajor,
): Promise<RuntimeResponse> {
  let release = () => {};
  try {
    if (!name) throw new AppError("NOT_FOUND", "no such Runtime endpoint (see /internal/runtime/openapi.json)");
    if (req.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Runtime endpoints take POST");
    const caller = { ...(await verifyRuntimeKey(req.authorization)), signal: req.signal, protocol };
    // Per-key caps before any parsing (server/runtime-api/caps.ts): 429 with Retry-After.
    release = takeRuntimeCall(caller.keyId);
    const { request, run } = ENDPOINTS[name];
    const text = typeof req.body === "string" ? req.body : await req.body();
    const body = request.safeParse(parseJson({ ...req, body: text }));
    if (!body.success) {
      throw new AppError(
        "INVALID_REQUEST",
        "request body does not match the protocol",
        body.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message })),
      );
    }
    if (takesJob(name) && !jobIdSchema.safeParse(jobId).success)
      throw new AppError("JOB_NOT_FOUND", "no job has this id");
    const data = body.data as { runtimeInstanceId: string; capabilities?: string[]; runtimeVersion?: string };
    const touch = touchRuntimeInstance(data.runtimeInstanceId, {
      capabilities: data.capabilities,
      version: data.runtimeVersion,
      protocolVersion: protocolLabel(protocol),
    }).catch((e) => console.error("[runtime-api] lastSeenAt not recorded:", (e as Error).message));
    const [result] = await Promise.all([run(body.data, jobId, caller), touch]);
    return { status: 200, body: result };
  } catch (e) {
    return errorAnswer(e);
  } finally {
    release();
  }
}

function parseJson(req: RuntimeRequest & { body: string }): unknown {
  if (req.contentType && !/^application\/(.+\+)?json\b/i.test(req.contentType))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
  if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body.trim()) throw new AppError("MALFORMED_JSON", "request body is empty; send a JSON object");
  refuseDeepJson(req.body);
  try {
    return JSON.parse(req.body);
  } catch {
    throw new AppError("MALFORMED_JSON", "request body is not valid JSON");
  }
}

export const tooLarge = () =>
  new AppError("PAYLOAD_TOO_LARGE", `body over ${MAX_BODY_BYTES} bytes`, { limitBytes: MAX_BODY_BYTES });

export function errorAnswer(e: unknown): RuntimeResponse {
  if (isAppError(e)) {
    const wait =
      e.code === "RATE_LIMITED" ? (e.details as { retryAfterSeconds?: number })?.retryAfterSeconds : undefined;
    return {
      status: e.status,
      body: { error: { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) } },
      ...(wait ? { headers: { "retry-after": String(wait) } } : {}),
    };
  }
  if (isDatabaseUnavailable(e)) {
    console.error(`[runtime-api] database unavailable${traceTag()}:`, (e as Error).message);
    const { code, details } = unavailable(e);
    const message =
      code === "OUTCOME_UNKNOWN"
        ? "the job store did not confirm the write; retry with backoff (a repeated call finds it if it was made)"
        : "the job store is unavailable; retry with backoff";
    return { status: 503, body: { error: { code, message, details } } };
  }
  console.error(`[runtime-api] unexpected error${traceTag()}:`, e);
  return { status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } };
}
