import v8 from "node:v8";
import vm from "node:vm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { uid } from "../helpers/factories";
import { callApi, platform, serviceKey } from "../helpers/platform-api";

/**
 * Hostile requests at every platform API route: each request is a valid one with one hostile
 * change (a NUL or lone surrogate in a field or a key, a prototype name as a key, a body nested
 * thousands deep, truncated or not JSON, 1,001 items, an id that is not an id, a learner, job or
 * knowledge point that does not exist, a wrong media type). Every answer is a 4xx with a code,
 * no table moves, nothing reaches Object.prototype, and the process's heap does not grow.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

// A real collection before each heap reading (vitest does not start node with --expose-gc).
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

async function fingerprint() {
  const db = getDb();
  const rows = await db.$queryRaw<{ t: string; n: bigint; h: string | null }[]>`
    SELECT 'user' AS t, count(*) AS n, md5(string_agg(id || name || email || coalesce(locale, '') || coalesce("externalId", ''), ',' ORDER BY id)) AS h FROM "User"
    UNION ALL SELECT 'material', count(*), md5(string_agg(id || title || content, ',' ORDER BY id)) FROM "Material"
    UNION ALL SELECT 'kp', count(*), md5(string_agg(id || title || coalesce("materialId", ''), ',' ORDER BY id)) FROM "KnowledgePoint"
    UNION ALL SELECT 'attempt', count(*), NULL FROM "QuizAttempt"
    UNION ALL SELECT 'session', count(*), NULL FROM "StudySession"
    UNION ALL SELECT 'job', count(*), NULL FROM "AiRuntimeJob"
    UNION ALL SELECT 'snapshot', count(*), NULL FROM "Snapshot"
    UNION ALL SELECT 'consent', count(*), md5(string_agg("userId" || granted::text, ',' ORDER BY "userId")) FROM "AiConsent"
    UNION ALL SELECT 'audit', count(*), NULL FROM "AdminAuditLog"
    UNION ALL SELECT 'key', count(*), md5(string_agg(id || coalesce("revokedAt"::text, ''), ',' ORDER BY id)) FROM "ServiceKey"`;
  return JSON.stringify(rows.map((r) => [r.t, Number(r.n), r.h]));
}

const LEARNER = uid("fuzz");
const hostileText = fc.oneof(
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.string().map((s) => `${s}\ud800`),
  fc.string().map((s) => `\udfff${s}`),
  fc.constantFrom("\u0000", "a\ud83d", "\ud800\u0000", "x\u0000".repeat(300)),
);
const protoKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty");
/** Path ids: ones no learner, material or job has, prototype names among them. */
const unknownId = fc.oneof(protoKey, fc.constantFrom("nobody", "0", "NaN", "undefined", "null"), fc.uuid());
/** Path ids that are not ids at all. */
const badId = fc.constantFrom("has space", "x".repeat(129), "a/b", "é", "a\u0000b", "a\ud800", "%00", "<script>");

type Case = { method: "GET" | "PUT" | "POST" | "DELETE"; path: string; raw: string; contentType: string };

const valid = {
  learner: { name: "Fuzz", email: "fuzz@example.test", locale: "en", aiConsent: true },
  material: { title: "T", text: "text", knowledgePoints: [{ externalId: "k1", title: "K" }] },
  activity: {
    quizAttempts: [
      { externalId: "q1", knowledgePointExternalId: "k1", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
    ],
    studySessions: [{ externalId: "s1", materialExternalId: "m1", startedAt: "2026-11-01T09:00:00Z", minutes: 3 }],
  },
  job: { jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: "fuzz" },
};

/** One hostile change to a valid body, as raw JSON text. */
const mutate = (body: object) =>
  fc.oneof(
    // A hostile string in place of one field's value, or of a nested one.
    fc.tuple(fc.nat(), hostileText).map(([n, bad]) => {
      const copy = structuredClone(body) as Record<string, unknown>;
      const keys = Object.keys(copy);
      copy[keys[n % keys.length]!] = bad;
      return JSON.stringify(copy);
    }),
    // A hostile key, at the top or inside the first nested object.
    fc.tuple(fc.oneof(hostileText, protoKey), fc.boolean()).map(([key, nested]) => {
      const text = JSON.stringify(body);
      const inject = `${JSON.stringify(key)}:{"polluted":true,"admin":true},`;
      if (!nested) return `{${inject}${text.slice(1)}`;
      const at = text.indexOf("{", 1);
      return at < 0 ? `{${inject}${text.slice(1)}` : `${text.slice(0, at + 1)}${inject}${text.slice(at + 1)}`;
    }),
    // Deeply nested, truncated, or not JSON at all.
    fc.integer({ min: 1000, max: 20_000 }).map((d) => "[".repeat(d) + "]".repeat(d)),
    fc.integer({ min: 1000, max: 5000 }).map((d) => '{"name":'.repeat(d) + '"x"' + "}".repeat(d)),
    fc.nat().map((n) => {
      const text = JSON.stringify(body);
      return text.slice(0, n % text.length);
    }),
    fc.string({ unit: "binary", maxLength: 200 }).filter((s) => !/^\s*\{/.test(s)),
    fc.constantFrom("null", "[]", "1", '"x"', "true"),
  );

const activityTooMany = fc.integer({ min: 1001, max: 1100 }).map((n) =>
  JSON.stringify({
    studySessions: Array.from({ length: n }, (_, i) => ({
      externalId: `s${i}`,
      startedAt: "2026-11-01T09:00:00Z",
      minutes: 1,
    })),
  }),
);

const cases: fc.Arbitrary<Case> = fc.oneof(
  // PUT learner: hostile bodies at an existing learner, or a valid body at an id that is not one.
  mutate(valid.learner).map((raw) => ({
    method: "PUT" as const,
    path: `/learners/${LEARNER}`,
    raw,
    contentType: "application/json",
  })),
  badId.map((id) => ({
    method: "PUT" as const,
    path: `/learners/${encodeURIComponent(id.toWellFormed())}`,
    raw: JSON.stringify(valid.learner),
    contentType: "application/json",
  })),
  // PUT material.
  mutate(valid.material).map((raw) => ({
    method: "PUT" as const,
    path: `/learners/${LEARNER}/materials/m1`,
    raw,
    contentType: "application/json",
  })),
  unknownId.map((id) => ({
    method: "PUT" as const,
    path: `/learners/${id}/materials/m1`,
    raw: JSON.stringify(valid.material),
    contentType: "application/json",
  })),
  // Activity: hostile bodies, 1,001+ items, unknown knowledge points and materials, unknown learners.
  mutate(valid.activity).map((raw) => ({
    method: "POST" as const,
    path: `/learners/${LEARNER}/activity`,
    raw,
    contentType: "application/json",
  })),
  activityTooMany.map((raw) => ({
    method: "POST" as const,
    path: `/learners/${LEARNER}/activity`,
    raw,
    contentType: "application/json",
  })),
  fc.tuple(unknownId, fc.boolean()).map(([id, kp]) => ({
    method: "POST" as const,
    path: `/learners/${LEARNER}/activity`,
    raw: JSON.stringify(
      kp
        ? { quizAttempts: [{ ...valid.activity.quizAttempts[0], knowledgePointExternalId: id }] }
        : { studySessions: [{ ...valid.activity.studySessions[0], materialExternalId: id }] },
    ),
    contentType: "application/json",
  })),
  unknownId.map((id) => ({
    method: "POST" as const,
    path: `/learners/${id}/activity`,
    raw: JSON.stringify(valid.activity),
    contentType: "application/json",
  })),
  // Jobs: hostile bodies (the learner has no consent, so even a valid one is refused), unknown targets.
  mutate(valid.job).map((raw) => ({
    method: "POST" as const,
    path: `/learners/${LEARNER}/jobs`,
    raw,
    contentType: "application/json",
  })),
  unknownId.map((id) => ({
    method: "POST" as const,
    path: `/learners/${LEARNER}/jobs`,
    raw: JSON.stringify({ ...valid.job, target: { type: "material", externalId: id } }),
    contentType: "application/json",
  })),
  fc.oneof(unknownId, badId).map((id) => ({
    method: "GET" as const,
    path: `/jobs/${encodeURIComponent(id.toWellFormed())}`,
    raw: "",
    contentType: "",
  })),
  // Cancel of jobs that do not exist, or ids that are not ids, with hostile bodies (a cancel takes none).
  fc.tuple(fc.oneof(unknownId, badId), mutate(valid.job)).map(([id, raw]) => ({
    method: "POST" as const,
    path: `/jobs/${encodeURIComponent(id.toWellFormed())}/cancel`,
    raw,
    contentType: "application/json",
  })),
  // Export and erasure of learners that do not exist, or ids that are not ids.
  fc.tuple(fc.oneof(unknownId, badId), fc.constantFrom("GET" as const, "DELETE" as const)).map(([id, method]) => ({
    method,
    path: `/learners/${encodeURIComponent(id.toWellFormed())}${method === "GET" ? "/export" : ""}`,
    raw: "",
    contentType: "",
  })),
  // A valid body sent as something else.
  fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x").map((t) => ({
    method: "PUT" as const,
    path: `/learners/${LEARNER}`,
    raw: JSON.stringify(valid.learner),
    contentType: t,
  })),
);

describe("fuzzing the platform API: hostile requests answer 4xx and change nothing", () => {
  let key: string;
  beforeAll(async () => {
    // The limiter is tested on its own (tests/platform/service-keys.test.ts); here every call must reach its route.
    process.env.PLATFORM_API_RATE_LIMIT = "100000000";
    key = await serviceKey();
    const api = platform(key);
    expect((await api.putLearner(LEARNER, { name: "Fuzz" })).status).toBe(201);
    expect((await api.putMaterial(LEARNER, "m1", valid.material)).status).toBe(201);
  });
  afterAll(() => {
    delete process.env.PLATFORM_API_RATE_LIMIT;
  });

  it(`${RUNS} hostile requests: no 5xx, no state change, no pollution, heap flat`, async () => {
    const send = (c: Case) =>
      callApi(c.method, c.path, undefined, {
        key,
        raw: c.method === "GET" || c.method === "DELETE" ? undefined : c.raw,
        headers: c.contentType ? { "content-type": c.contentType } : {},
      });
    // Warm up (modules, pools, JIT) before the heap is measured.
    await fc.assert(
      fc.asyncProperty(cases, async (c) => void (await send(c))),
      { numRuns: 100 },
    );
    const before = await fingerprint();
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        sent++;
        const res = await send(c);
        const what = `${c.method} ${c.path} ${c.raw.slice(0, 120)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        expect(typeof res.body.error.code, what).toBe("string");
        expect(typeof res.body.error.message, what).toBe("string");
      }),
      { numRuns: RUNS },
    );
    gc();
    const heapGrewMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    console.log(`[fuzz platform-api] ${sent} requests, heap ${heapGrewMb >= 0 ? "+" : ""}${heapGrewMb.toFixed(1)} MB`);
    expect(sent).toBe(RUNS);
    expect(await fingerprint()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(heapGrewMb).toBeLessThan(16);
  }, 600_000);

  it("bodies over the limit are a 413 without being read whole, and change nothing", async () => {
    const before = await fingerprint();
    const limit = 2 * 1024 * 1024;
    const big = JSON.stringify({ ...valid.material, text: "x".repeat(limit) });
    const declared = await callApi("PUT", `/learners/${LEARNER}/materials/m1`, undefined, { key, raw: big });
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    // A chunked body with no length: reading stops soon after the limit.
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        if (pulled > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const { PUT } = await import("@/app/api/v1/[...path]/route");
    const res = await PUT(
      new Request(`http://localhost/api/v1/learners/${LEARNER}`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: stream,
        duplex: "half",
      } as RequestInit),
      { params: Promise.resolve({ path: ["learners", LEARNER] }) },
    );
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(20 * 1024 * 1024);
    expect(await fingerprint()).toBe(before);
  });

  it("prototype names as ids are plain data: a learner called __proto__ is just a learner", async () => {
    const api = platform(key);
    for (const id of ["__proto__", "constructor", "toString"]) {
      const res = await api.putLearner(id, { name: id });
      expect(res.status).toBe(201);
      expect(res.body.externalId).toBe(id);
      expect((await api.putMaterial(id, "__proto__", { ...valid.material, knowledgePoints: [] })).status).toBe(201);
    }
    expect(await getDb().user.count({ where: { externalId: { in: ["__proto__", "constructor", "toString"] } } })).toBe(
      3,
    );
    expect(({} as Record<string, unknown>).name).toBeUndefined();
  });

  it("afterwards a normal call still works", async () => {
    const res = await platform(key).activity(LEARNER, {
      quizAttempts: [{ ...valid.activity.quizAttempts[0], externalId: "after" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.new).toBe(1);
  });
});
