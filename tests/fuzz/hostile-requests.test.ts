import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { call, type Endpoint } from "../helpers/runtime-api";
import { setPassword, signedInCookie } from "../helpers/auth";
import { POST as trpcPost, GET as trpcGet } from "@/app/api/trpc/[trpc]/route";
import { appRouter } from "@/server/trpc/root";
import { getDb } from "@/server/db";

const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
/** URLs cannot carry lone surrogates; the server never sees them, so neither does the fuzzer. */
const safeEncode = (s: string) => encodeURIComponent(s.toWellFormed());

/** Everything that must not move when hostile requests arrive. */
async function stateFingerprint() {
  const db = getDb();
  const [jobs, events, results, consents, credentials, users, keys, attempts, materials, kps, sessions] =
    await Promise.all([
      db.aiRuntimeJob.groupBy({
        by: ["status"],
        _count: { _all: true },
        _sum: { attemptNo: true, retryCount: true, priority: true },
      }),
      db.jobEvent.count(),
      db.aiRuntimeResult.count(),
      db.aiConsent.findMany({ select: { userId: true, granted: true, apiKeyMode: true }, orderBy: { userId: "asc" } }),
      db.userCredential.count({ where: { deletedAt: null } }),
      db.user.count(),
      db.runtimeApiKey.count({ where: { revokedAt: null } }),
      db.quizAttempt.count(),
      // My materials: every procedure of the router is fuzzed, so these must not move either.
      db.material.count(),
      db.knowledgePoint.count(),
      db.studySession.count(),
    ]);
  return JSON.stringify({
    jobs: jobs.sort((a, b) => a.status.localeCompare(b.status)),
    events,
    results,
    consents,
    credentials,
    users,
    keys,
    attempts,
    materials,
    kps,
    sessions,
  });
}

const sqlish = fc.constantFrom(
  "' OR '1'='1",
  '\'; DROP TABLE "AiRuntimeJob"; --',
  "1; SELECT pg_sleep(5)",
  "$$",
  "\\x00",
  "%00",
  "../../etc/passwd",
);
const oddText = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  sqlish,
  fc.constant("\u202e\u0000\uffff\ud800"),
  fc.constant("x".repeat(70_000)),
);
const protoKeys = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");
const nasty: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    oddText,
    fc.double(),
    fc.integer(),
    fc.constantFrom(null, true, false, Number.MAX_SAFE_INTEGER, -1, 1e308),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        oddText,
        protoKeys,
        fc.constantFrom("runtimeInstanceId", "attemptNo", "output", "capabilities", "limit", "claim", "errorCode"),
      ),
      tie("value"),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** A body as raw text: JSON of nasty values, truncated JSON, deep nesting, or not JSON at all. */
const rawBody = fc.oneof(
  nasty.map((v) => JSON.stringify(v) ?? "null"),
  nasty.chain((v) => {
    const text = JSON.stringify(v) ?? "{}";
    return fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n));
  }),
  fc.integer({ min: 1000, max: 20_000 }).map((d) => "[".repeat(d) + "]".repeat(d)),
  fc.integer({ min: 1000, max: 5_000 }).map((d) => '{"a":'.repeat(d) + "1" + "}".repeat(d)),
  fc.string({ unit: "binary", maxLength: 300 }),
  protoKeys.map(
    (k) => `{"${k}": {"runtimeInstanceId": "evil", "admin": true}, "constructor": {"prototype": {"polluted": 1}}}`,
  ),
);
const contentType = fc.constantFrom(
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "application/json; charset=utf-7",
);

describe("fuzzing: hostile requests never cause a 5xx or a state change", () => {
  let learner: Learner;
  let key: string;
  let jobId: string;
  let cookie: string;
  beforeAll(async () => {
    learner = await createLearner();
    key = await runtimeKey();
    jobId = (await createTestJob(learner)).id;
    await setPassword(learner.user.id, "fuzz-password-123");
    cookie = await signedInCookie(learner.user.email, "fuzz-password-123");
  });

  it(`${RUNS} requests at the Runtime routes`, async () => {
    const before = await stateFingerprint();
    const endpoints: Endpoint[] = ["poll", "lock", "heartbeat", "result", "results", "fail"];
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.oneof(fc.constant("real"), oddText, fc.constant("none")),
        rawBody,
        contentType,
        fc.constantFrom("good", "none", "garbage"),
        async (endpoint, id, body, type, auth) => {
          sent++;
          const target =
            endpoint === "poll" || endpoint === "results"
              ? null
              : id === "real"
                ? jobId
                : id === "none"
                  ? ""
                  : id.slice(0, 200);
          const res = await call(endpoint, target, null, {
            key: auth === "good" ? key : auth === "garbage" ? "ajr_%00garbage' OR 1=1" : null,
            rawBody: body,
            headers: { "content-type": type },
          });
          expect(res.status, `${endpoint} answered ${res.status}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(typeof res.body.error.code).toBe("string");
        },
      ),
      { numRuns: RUNS },
    );
    expect(sent).toBe(RUNS);
    expect(await stateFingerprint()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 600_000);

  it(`${RUNS} requests at the tRPC endpoint, anonymous and signed in`, async () => {
    const before = await stateFingerprint();
    const procedures = Object.keys(appRouter._def.procedures);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...procedures),
          oddText.map((s) => safeEncode(s.slice(0, 100))),
        ),
        rawBody,
        fc.boolean(),
        fc.boolean(),
        async (path, body, signedIn, asGet) => {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (signedIn) headers.cookie = cookie;
          const url = `http://localhost:3000/api/trpc/${path}`;
          const res = asGet
            ? await trpcGet(new Request(`${url}?input=${safeEncode(body)}`, { headers }))
            : await trpcPost(new Request(url, { method: "POST", headers, body }));
          const text = await res.text();
          // A hostile input may still be a valid read (a list with no filters): never a server error.
          expect(res.status, `${path} answered ${res.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
    expect(await stateFingerprint()).toBe(before);
  }, 600_000);

  it("the process is still healthy afterwards: a normal request works", async () => {
    const res = await call("lock", jobId, { runtimeInstanceId: uid("after-fuzz") }, { key });
    expect(res.status).toBe(200);
  });
});
