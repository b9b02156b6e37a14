import type { z } from "zod";
import { AppError, isAppError } from "../errors";
import { verifyRuntimeKey } from "../runtime-keys";
import { touchRuntimeInstance } from "../runtime-instances";
import { metrics } from "../observability/metrics";

const MAX_BODY_BYTES = Number(process.env.RUNTIME_MAX_BODY_BYTES ?? 256 * 1024);
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

type Ctx = { params: Promise<Record<string, string | string[] | undefined>> };
type Handler<B> = (input: { body: B; jobId: string; keyId: string }) => Promise<unknown>;

/**
 * The Runtime route builder: bearer key → body (size limit, JSON, zod) → job id → handler →
 * JSON. Every error leaves as {"error": {code, message, details}} with the status of its code;
 * anything unexpected is logged and answered 500 (or 503 when the database is unreachable)
 * without internals.
 */
export function runtimeRoute<S extends z.ZodType>(schema: S, handler: Handler<z.infer<S>>) {
  return async (req: Request, ctx: Ctx): Promise<Response> => {
    const started = performance.now();
    const res = await handle(schema, handler, req, ctx);
    const endpoint = new URL(req.url).pathname.split("/").pop() ?? "unknown";
    metrics().httpDuration.observe({ endpoint, status: String(res.status) }, (performance.now() - started) / 1000);
    return res;
  };
}

async function handle<S extends z.ZodType>(schema: S, handler: Handler<z.infer<S>>, req: Request, ctx: Ctx): Promise<Response> {
    try {
      const { keyId } = await verifyRuntimeKey(req.headers.get("authorization"));
      const body = schema.safeParse(await readJson(req));
      if (!body.success) {
        throw new AppError(
          "INVALID_REQUEST",
          "request body does not match the protocol",
          body.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message })),
        );
      }
      const params = ctx?.params ? await ctx.params : {};
      const jobId = typeof params.jobId === "string" ? params.jobId : "";
      if ("jobId" in params && !JOB_ID.test(jobId)) throw new AppError("JOB_NOT_FOUND", "no job has this id");
      const data = body.data as z.infer<S> & { runtimeInstanceId: string; capabilities?: string[]; runtimeVersion?: string };
      const touch = touchRuntimeInstance(data.runtimeInstanceId, {
        capabilities: data.capabilities,
        version: data.runtimeVersion,
      }).catch((e) => console.error("[runtime-api] lastSeenAt not recorded:", (e as Error).message));
      const [result] = await Promise.all([handler({ body: body.data, jobId, keyId }), touch]);
      return json(200, result);
    } catch (e) {
      return errorResponse(e);
    }
}

async function readJson(req: Request): Promise<unknown> {
  const type = req.headers.get("content-type");
  if (type && !/^application\/(.+\+)?json\b/i.test(type))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", `body over ${MAX_BODY_BYTES} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw new AppError("PAYLOAD_TOO_LARGE", `body over ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) throw new AppError("MALFORMED_JSON", "request body is empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("MALFORMED_JSON", "request body is not valid JSON");
  }
}

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

export function errorResponse(e: unknown): Response {
  if (isAppError(e)) {
    return json(e.status, { error: { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) } });
  }
  if (isUnavailable(e)) {
    console.error("[runtime-api] database unavailable:", (e as Error).message);
    return json(503, { error: { code: "UNAVAILABLE", message: "the job store is unavailable; retry with backoff" } });
  }
  console.error("[runtime-api] unexpected error:", e);
  return json(500, { error: { code: "INTERNAL", message: "internal error" } });
}

function isUnavailable(e: unknown) {
  const text = `${(e as { code?: string })?.code ?? ""} ${(e as Error)?.message ?? ""}`;
  return /P1001|P1017|P2024|ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|timeout exceeded when trying to connect|DatabaseNotReachable|the database system is (starting|shutting)/i.test(
    text,
  );
}
