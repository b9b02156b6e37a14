import { setting } from "../config";
import { AppError, RETRY_AFTER_SECONDS } from "../errors";
import { errorAnswer } from "../runtime-api/dispatch";
import { takeCall } from "./rate-limit";
import { ROUTES, type Route } from "./routes";
import { takeSlot } from "../bulkheads";
import { heldBack, holdBack } from "./refusals";
import { EXTERNAL_ID } from "./schemas";
import { requireScope, verifyServiceKey } from "./service-keys";
import { unstorableDetails } from "../security/storable-text";
import { refuseDeepJson } from "../security/json-depth";

export const maxBodyBytes = () => setting("PLATFORM_API_MAX_BODY_BYTES");
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type PlatformRequest = {
  method: string;
  /** The path below /api/v1/, decoded, as segments. */
  path: string[];
  authorization: string | null;
  contentType: string | null;
  /**
   * The raw body, or how to read it: a door passes a reader, called only once the caller's key,
   * scope, rate and slot are checked, so a refused caller's body is never read or parsed. The
   * reader refuses a body over the limit (413) by its declared length or at the first bytes past.
   */
  body: string | (() => Promise<string>);
};
export type PlatformResponse = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * Every platform API call: route → service key → scope → rate limit → slot → body → JSON → zod →
 * domain call. Everything before the body is cheap, so a refusal (401, 403, 429) costs no reading
 * or parsing; a key that filled a card's log (409 CARD_LOG_FULL) is held back from that learner's
 * activity for CARD_LOG_FULL_COOLDOWN_SECONDS (429 before its body is read, refusals.ts).
 * Errors leave in the Runtime protocol's shape, {"error": {code, message, details}}, through the
 * same errorAnswer (unexpected ones as a logged 500, an unreachable database as 503).
 */
export async function dispatchPlatform(req: PlatformRequest): Promise<PlatformResponse> {
  try {
    const { route, params } = match(req.method, req.path);
    const caller = await verifyServiceKey(req.authorization);
    requireScope(caller, route.scope);
    const held = route.lane ? heldBack(caller.keyId, params) : null;
    if (held) throw held;
    await takeCall(caller.keyId);
    // Heavy work's slot before its body is read: a refused call costs neither reading, parsing nor the database.
    const give = route.lane ? takeSlot(route.lane, { key: caller.keyId }) : null;
    try {
      const text = !route.body ? "" : typeof req.body === "string" ? req.body : await req.body();
      const body = route.body ? parseBody(route, { ...req, body: text }) : undefined;
      checkIds(params);
      try {
        return await route.run({ body: body as never, params, actor: { type: "platform", id: caller.keyId } });
      } catch (e) {
        if (route.lane && (e as AppError)?.code === "CARD_LOG_FULL") holdBack(caller.keyId, params);
        throw e;
      }
    } finally {
      give?.();
    }
  } catch (e) {
    const answer = errorAnswer(e);
    // A rate-limited key waits for its window; a busy database (503 UNAVAILABLE) a few seconds.
    const limited =
      (e as AppError)?.code === "RATE_LIMITED" && ((e as AppError).details as { retryAfterSeconds: number });
    const retryAfter = limited ? limited.retryAfterSeconds : answer.status === 503 ? RETRY_AFTER_SECONDS : null;
    return retryAfter === null ? answer : { ...answer, headers: { "retry-after": String(retryAfter) } };
  }
}

function match(method: string, path: string[]): { route: Route; params: Record<string, string> } {
  let pathMatched = false;
  for (const route of ROUTES) {
    const pattern = route.path.split("/").slice(1);
    if (pattern.length !== path.length) continue;
    const params: Record<string, string> = Object.create(null);
    const fits = pattern.every((p, i) => {
      if (p.startsWith("{")) return ((params[p.slice(1, -1)] = path[i]!), path[i] !== "");
      return p === path[i];
    });
    if (!fits) continue;
    pathMatched = true;
    if (route.method === method) return { route, params };
  }
  if (pathMatched) throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed here (see /api/v1/openapi.json)`);
  throw new AppError("NOT_FOUND", "no such platform API route (see /api/v1/openapi.json)");
}

/** Ids in the path: an external id that could never have been stored is a 400; a job id that cannot exist, 404. */
function checkIds(params: Record<string, string>) {
  for (const [name, value] of Object.entries(params)) {
    if (name === "jobId") {
      if (!JOB_ID.test(value)) throw new AppError("JOB_NOT_FOUND", "no job has this id");
    } else if (!EXTERNAL_ID.test(value)) {
      throw new AppError("INVALID_REQUEST", `${name} must be 1 to 128 of the characters A-Z a-z 0-9 . _ ~ : @ -`, [
        { path: name, message: "not a valid external id" },
      ]);
    }
  }
}

function parseBody(route: Route, req: PlatformRequest & { body: string }): unknown {
  if (req.contentType && !/^application\/(.+\+)?json\b/i.test(req.contentType))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
  const limit = maxBodyBytes();
  if (Buffer.byteLength(req.body) > limit) throw tooLarge(limit);
  if (!req.body.trim()) throw new AppError("MALFORMED_JSON", "request body is empty; send a JSON object");
  refuseDeepJson(req.body);
  let json: unknown;
  try {
    json = JSON.parse(req.body);
  } catch {
    throw new AppError("MALFORMED_JSON", "request body is not valid JSON");
  }
  // Before the schema, whose clean-ups (control characters out of names) would hide a NUL: such text is refused, never mended.
  const unstorable = unstorableDetails(json);
  if (unstorable.length)
    throw new AppError("INVALID_REQUEST", `${unstorable[0]!.path} ${unstorable[0]!.message}`, unstorable);
  const parsed = route.body!.safeParse(json);
  if (!parsed.success) {
    // A field over its size limit (a material's text) is a body too large, as on the learner page: 413.
    const tooBig = parsed.error.issues.find((i) => i.code === "custom" && typeof i.params?.limitBytes === "number");
    if (tooBig?.code === "custom") {
      const path = tooBig.path.join(".");
      throw new AppError("PAYLOAD_TOO_LARGE", `${path} ${tooBig.message}`, {
        limitBytes: tooBig.params!.limitBytes as number,
        path,
      });
    }
    throw new AppError(
      "INVALID_REQUEST",
      "request body does not match the schema (see /api/v1/openapi.json)",
      parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
  return parsed.data;
}

export const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `body over ${limit} bytes`, { limitBytes: limit });
