import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { call, type Endpoint } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { getDb } from "@/server/db";

/**
 * Structured fuzzing: requests that are valid in every field but one, which
 * holds something hostile — a NUL, a lone surrogate, an oversized string, a nested value ending in
 * a NUL, or a prototype-named failure code — possibly with prototype-named extra keys. Each such
 * request must be refused with the exact 4xx (a NUL or lone surrogate: 400 INVALID_REQUEST naming
 * that field; nested past 100 levels: 400 MALFORMED_JSON before parsing), nothing changed.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
// Leases long enough that the job held below stays held for the whole run.
process.env.JOB_LEASE_SECONDS = "7200";

type Path = (string | number)[];
type Hostile = { kind: "nul" | "surrogate" | "oversized" | "nested" | "deep"; text: string };

const filler = fc.string({ maxLength: 8 });
const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  fc.tuple(filler, filler).map(([a, b]) => ({ kind: "nul" as const, text: JSON.stringify(`${a}\u0000${b}`) })),
  fc.tuple(filler, fc.integer({ min: 0xd800, max: 0xdfff }), filler).map(([a, c, b]) => ({
    kind: "surrogate" as const,
    // JSON.stringify writes a lone surrogate as an escape; the server's JSON.parse turns it back.
    text: JSON.stringify(`${a}${String.fromCharCode(c)}${b}`),
  })),
  fc
    .integer({ min: 300_000, max: 400_000 })
    .map((n) => ({ kind: "oversized" as const, text: JSON.stringify("x".repeat(n)) })),
  // Nested within the 100 levels a body may have (so the schemas see it), or far past them.
  fc
    .integer({ min: 5, max: 40 })
    .map((d) => ({ kind: "nested" as const, text: '{"a":['.repeat(d) + '"\\u0000"' + "]}".repeat(d) })),
  fc
    .integer({ min: 100, max: 5_000 })
    .map((d) => ({ kind: "deep" as const, text: '{"a":['.repeat(d) + '"\\u0000"' + "]}".repeat(d) })),
);
const QUERIES = new Set(["snapshots.get", "jobs.get", "admin.quotas.get", "materials.get"]);
const protoKeys = fc.subarray(["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"]);

/** Every string leaf of a value, as paths. */
function stringLeaves(value: unknown, path: Path = []): Path[] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]));
  return [];
}

/** The body as JSON text with the leaf at `path` replaced by raw JSON text, and extra keys added on top. */
function withHostile(base: Record<string, unknown>, path: Path, raw: string, extraKeys: string[]): string {
  const marker = `@@HOSTILE_${Math.random().toString(36).slice(2)}@@`;
  const copy = structuredClone(base);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = marker;
  let text = JSON.stringify(copy).replace(JSON.stringify(marker), () => raw);
  for (const k of extraKeys) text = text.replace(/^\{/, `{"${k}":{"polluted":true,"runtimeInstanceId":"evil"},`);
  return text;
}

async function fingerprint() {
  const db = getDb();
  const [jobs, events, results, users, keys, credentials, usage, rejections, materials, kps, sessions] =
    await Promise.all([
      db.aiRuntimeJob.findMany({
        select: {
          id: true,
          status: true,
          attemptNo: true,
          lockUntil: true,
          stage: true,
          progress: true,
          errorCode: true,
          updatedAt: true,
        },
        orderBy: { id: "asc" },
      }),
      db.jobEvent.count(),
      db.aiRuntimeResult.count(),
      db.user.findMany({ select: { id: true, name: true, email: true }, orderBy: { id: "asc" } }),
      db.runtimeApiKey.count({ where: { revokedAt: null } }),
      db.userCredential.count({ where: { deletedAt: null } }),
      db.quotaUsage.aggregate({ _sum: { used: true } }),
      db.jobRejection.count(),
      db.material.findMany({ select: { id: true, title: true, content: true }, orderBy: { id: "asc" } }),
      db.knowledgePoint.findMany({ select: { id: true, title: true, description: true }, orderBy: { id: "asc" } }),
      db.studySession.count(),
    ]);
  return JSON.stringify({
    jobs,
    events,
    results,
    users,
    keys,
    credentials,
    usage,
    rejections,
    materials,
    kps,
    sessions,
  });
}

function expectedRefusal(kind: Hostile["kind"]) {
  if (kind === "oversized") return { status: 413, code: "PAYLOAD_TOO_LARGE" };
  return { status: 400, code: kind === "deep" ? "MALFORMED_JSON" : "INVALID_REQUEST" };
}

let learner: Learner;
let key: string;
let heldJob: string;
let pendingJob: string;
const HOLDER = "rt-holder";

beforeAll(async () => {
  learner = await createLearner();
  key = await runtimeKey();
  heldJob = (await createTestJob(learner, "weak_point_analysis", { timeoutSeconds: 7200 })).id;
  pendingJob = (await createTestJob(learner, "learning_state_analysis")).id;
  const locked = await call("lock", heldJob, { runtimeInstanceId: HOLDER }, { key });
  expect(locked.status).toBe(200);
});

describe("structured fuzzing: one hostile field in an otherwise valid request", () => {
  it(`${RUNS} Runtime requests: NUL, lone surrogates, oversized and deeply nested fields are refused exactly, nothing changes`, async () => {
    const kps = learner.knowledgePoints.map((k) => k.id);
    const bases: Record<Endpoint, { jobId: string | null; body: Record<string, unknown> }> = {
      poll: {
        jobId: null,
        body: {
          runtimeInstanceId: "rt-fuzz",
          capabilities: ["weak_point_analysis"],
          limit: 5,
          runtimeVersion: "1.0.0",
        },
      },
      lock: { jobId: pendingJob, body: { runtimeInstanceId: "rt-fuzz" } },
      heartbeat: {
        jobId: heldJob,
        body: { runtimeInstanceId: HOLDER, attemptNo: 1, stage: "model_inference", progress: 30, message: "thinking" },
      },
      result: {
        jobId: heldJob,
        body: {
          runtimeInstanceId: HOLDER,
          attemptNo: 1,
          output: validOutput("weak_point_analysis", kps),
          modelName: "deepseek-chat",
          promptVersion: "p1",
        },
      },
      results: {
        jobId: null,
        body: {
          runtimeInstanceId: HOLDER,
          results: [
            {
              jobId: heldJob,
              jobType: "weak_point_analysis",
              attemptNo: 1,
              output: validOutput("weak_point_analysis", kps),
              modelName: "deepseek-chat",
              usage: { provider: "deepseek", promptTokens: 10 },
            },
          ],
        },
      },
      fail: {
        jobId: heldJob,
        body: {
          runtimeInstanceId: HOLDER,
          attemptNo: 1,
          errorCode: "NETWORK_ERROR",
          errorMessage: "connection reset",
          // A rejection the Runtime's quality loop reports: every string in it is fuzzed too.
          rejectedOutput: { weakPoints: [{ title: "Fractions", knowledgePointId: "kp_x" }] },
          violations: [
            { path: "weakPoints.0.knowledgePointId", rule: "knowledge_point_unknown", message: "not in the snapshot" },
          ],
        },
      },
    };
    const before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(bases) as Endpoint[])),
        fc.nat(),
        hostile,
        protoKeys,
        async (endpoint, n, bad, extra) => {
          const { jobId, body } = bases[endpoint];
          const leaves = stringLeaves(body);
          const path = leaves[n % leaves.length]!;
          const res = await call(endpoint, jobId, null, { key, rawBody: withHostile(body, path, bad.text, extra) });
          const want = expectedRefusal(bad.kind);
          expect(
            res.status,
            `${endpoint} ${path.join(".")} ${bad.kind}: ${JSON.stringify(res.body).slice(0, 300)}`,
          ).toBe(want.status);
          expect(res.body.error.code).toBe(want.code);
          if (bad.kind === "nul" || bad.kind === "surrogate") {
            expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path.join("."));
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(await fingerprint()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 600_000);

  it("prototype-named failure codes: 400 UNKNOWN_ERROR_CODE, the held job untouched", async () => {
    const before = await fingerprint();
    const names = Object.getOwnPropertyNames(Object.prototype);
    for (const errorCode of names) {
      const res = await call(
        "fail",
        heldJob,
        { runtimeInstanceId: HOLDER, attemptNo: 1, errorCode, errorMessage: "x" },
        { key },
      );
      expect(res.status, errorCode).toBe(400);
      expect(res.body.error.code).toBe("UNKNOWN_ERROR_CODE");
    }
    expect(await fingerprint()).toBe(before);
  });

  it(`${RUNS} tRPC requests from a signed-in learner: the same hostile fields, refused with 4xx, nothing changes`, async () => {
    await setPassword(learner.user.id, "fields-password-123");
    const cookie = await signedInCookie(learner.user.email, "fields-password-123");
    const me = learner.user.id;
    const bases: [string, Record<string, unknown>][] = [
      ["jobs.create", { jobType: "weak_point_analysis", target: { type: "user", id: me }, idempotencyKey: uid("k") }],
      [
        "jobs.create",
        {
          jobType: "quiz_generation",
          target: { type: "material", id: learner.material.id },
          params: { difficulty: "easy", questionTypes: ["single_choice"] },
        },
      ],
      ["jobs.cancel", { jobId: pendingJob }],
      ["snapshots.get", { snapshotId: "snap" }],
      ["jobs.get", { jobId: pendingJob }],
      ["admin.quotas.get", { user: learner.user.email }],
      ["analyses.trigger", { target: { type: "user", id: me }, jobTypes: ["weak_point_analysis"] }],
      ["credentials.set", { apiKey: "sk-fuzz-0123456789abcdef" }],
      ["consent.setApiKeyMode", { apiKeyMode: "platform_key" }],
      // My materials, flashcard study time and data rights: the one string leaf replaced
      // is the only thing wrong, so each of these would otherwise write.
      [
        "materials.create",
        { title: "Fuzzed", text: "Some notes.", knowledgePoints: [{ title: "A topic", description: "About it" }] },
      ],
      ["materials.update", { materialId: learner.material.id, title: "Renamed", text: "New text." }],
      ["materials.get", { materialId: learner.material.id }],
      ["materials.delete", { materialId: learner.material.id }],
      ["materials.addKnowledgePoint", { materialId: learner.material.id, title: "New topic", description: "d" }],
      ["materials.renameKnowledgePoint", { knowledgePointId: learner.knowledgePoints[0]!.id, title: "Renamed" }],
      ["materials.deleteKnowledgePoint", { knowledgePointId: learner.knowledgePoints[1]!.id }],
      ["flashcards.study", { jobId: pendingJob }],
      ["account.erase", { confirmEmail: learner.user.email }],
      ["admin.learnerData.erase", { userId: learner.user.id, confirmEmail: learner.user.email }],
    ];
    const before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bases.length - 1 }), fc.nat(), hostile, protoKeys, async (b, n, bad, extra) => {
        const [path, body] = bases[b]!;
        const leaves = stringLeaves(body);
        const leaf = leaves[n % leaves.length]!;
        const input = withHostile(body, leaf, bad.text, extra);
        const res = QUERIES.has(path)
          ? await trpcGet(
              new Request(`${APP_URL}/api/trpc/${path}?input=${encodeURIComponent(input)}`, { headers: { cookie } }),
            )
          : await trpcPost(
              new Request(`${APP_URL}/api/trpc/${path}`, {
                method: "POST",
                headers: { "content-type": "application/json", cookie, origin: APP_URL },
                body: input,
              }),
            );
        const text = await res.text();
        const what = `${path} ${leaf.join(".")} ${bad.kind}: ${text.slice(0, 300)}`;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        if (bad.kind === "nul" || bad.kind === "surrogate") {
          const err = JSON.parse(text).error;
          expect(res.status, what).toBe(400);
          expect(err.data.appCode, what).toBe("INVALID_REQUEST");
          expect(
            err.data.details.map((d: { path: string }) => d.path),
            what,
          ).toContain(leaf.join("."));
        }
      }),
      { numRuns: RUNS },
    );
    expect(await fingerprint()).toBe(before);
  }, 600_000);
});
