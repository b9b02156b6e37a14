import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { getDb } from "@/server/db";
import { COUNT_CAP, countJobs, exploreJobs, explorerQuery, type ExploreInput } from "@/server/admin/explorer";
import type { JobStatus } from "@/server/generated/prisma/enums";
import type { JobFilter } from "@/server/admin/filter-schema";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";
import { fullPartitions, onJobTable, parentIndexes } from "../helpers/partitions";

/**
 * The explorer over 120k generated jobs: filters and search agree with an independent Prisma
 * query, keyset paging walks a result exactly once in order, and the main queries' plans use
 * indexes. Rows are inserted with generate_series from one real job (its user and snapshot).
 */
const N = 120_000;
const TYPES = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
];
const STATES = ["succeeded", "succeeded", "succeeded", "failed", "cancelled", "pending", "running"];
let learner: Learner;
let other: Learner;
let tag: string;
const db = () => getDb();

beforeAll(async () => {
  learner = await createLearner();
  other = await createLearner();
  tag = uid("gen");
  const base = await createTestJob(learner);
  // Deterministic variety: type cycles every 5 rows, state every 7, one row in 50 belongs to
  // the other learner, failed and cancelled rows carry an error code (every such ending sets one),
  // a few succeeded ones too (a success after a failed attempt), params carry the row number.
  await db().$executeRaw`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey",
      params, "errorCode", "errorMessage", "attemptNo", "createdAt", "updatedAt", "finishedAt", "lockedAt")
    SELECT ${tag} || '_' || g,
      CASE WHEN g % 50 = 0 THEN ${other.user.id} ELSE "userId" END,
      (ARRAY[${Prisma.join(TYPES)}])[1 + g % 5]::"JobType", "targetType", "targetId", "snapshotId",
      (ARRAY[${Prisma.join(STATES)}])[1 + g % 7]::"JobStatus", "inputHash", ${tag} || '-key-' || g,
      jsonb_build_object('n', g, 'gen', ${tag}::text),
      CASE WHEN g % 7 = 3 THEN (ARRAY['INVALID_SCHEMA', 'MODEL_TIMEOUT', 'INVALID_SNAPSHOT'])[1 + g % 3]
        WHEN g % 7 = 4 THEN 'CANCELLED' WHEN g % 70 = 0 THEN 'MODEL_RATE_LIMIT' END,
      CASE WHEN g % 7 = 3 THEN 'attempt failed' WHEN g % 7 = 4 THEN 'cancelled by admin' END,
      1 + g % 3,
      timestamp '2026-01-01' + g * interval '1 minute', now(),
      CASE WHEN g % 7 IN (0, 1, 2, 3, 4) THEN timestamp '2026-01-01' + g * interval '1 minute' + interval '30 seconds' END,
      CASE WHEN g % 7 IN (0, 1, 2, 3, 4, 6) THEN timestamp '2026-01-01' + g * interval '1 minute' + interval '5 seconds' END
    FROM "AiRuntimeJob", generate_series(1, ${N}) g WHERE id = ${base.id}`;
  // One Runtime instance touched every 100th row.
  await db().$executeRaw`
    INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
    SELECT ${tag} || '_' || g, 'pending', 'locked', 'runtime', ${`${tag}-rt`}, 1, timestamp '2026-01-01' + g * interval '1 minute'
    FROM generate_series(100, ${N}, 100) g`;
  // A creation event per generated job, so the overview's JobEvent queries face a big table too.
  await db().$executeRaw`
    INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
    SELECT ${tag} || '_' || g, NULL, 'pending', 'learner', NULL, 0, timestamp '2026-01-01' + g * interval '1 minute'
    FROM generate_series(1, ${N}) g`;
  await db().$executeRaw`ANALYZE "AiRuntimeJob"`;
  await db().$executeRaw`ANALYZE "JobQueue"`;
  await db().$executeRaw`ANALYZE "JobEvent"`;
}, 180_000);

type PlanNode = { "Node Type": string; "Relation Name"?: string; Plans?: PlanNode[] };
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

// The database is shared with the other test files: leave no generated row (pending ones would be
// claimed by their Runtimes) and no statistics skewed by 120k rows behind.
afterAll(async () => {
  await db().$executeRaw`DELETE FROM "AiRuntimeJob" WHERE "userId" IN (${learner.user.id}, ${other.user.id})`;
  await db().$executeRaw`ANALYZE "AiRuntimeJob"`;
  await db().$executeRaw`ANALYZE "JobQueue"`;
  await db().$executeRaw`ANALYZE "JobEvent"`;
}, 120_000);

/** Every id the explorer returns for a filter, page by page. */
async function walk(filter: JobFilter, sort: ExploreInput["sort"] = "createdAt_desc", limit = 500) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await exploreJobs({ filter, sort, limit, cursor });
    ids.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return { ids, pages };
}

const mine = (extra: JobFilter = {}): JobFilter => ({
  json: { in: "params", path: "gen", value: JSON.stringify(tag) },
  ...extra,
});

describe("explorer over 120k jobs", () => {
  it("filters by state and type agree with an independent count, and paging walks them once, in order", async () => {
    const filter = mine({ status: ["failed"], jobType: ["quiz_generation"] });
    const expected = await db().aiRuntimeJob.findMany({
      where: { status: "failed", jobType: "quiz_generation", params: { path: ["gen"], equals: tag } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });
    expect(expected.length).toBeGreaterThan(3000);
    const { ids, pages } = await walk(filter);
    expect(ids).toEqual(expected.map((r) => r.id));
    expect(pages).toBe(Math.ceil(expected.length / 500));
    expect((await countJobs(filter)).total).toBe(expected.length);
    const asc = await walk(filter, "createdAt_asc", 700);
    expect(asc.ids).toEqual([...ids].reverse());
  });

  it("live, ended and mixed states agree with an independent query, and paging walks them once, in order", async () => {
    const sets: JobStatus[][] = [
      ["pending"],
      ["running", "pending", "locked"],
      ["cancelled"],
      ["succeeded"],
      ["failed", "running"],
      ["pending", "cancelled", "succeeded"],
    ];
    for (const status of sets) {
      const filter = mine({ status, jobType: ["weak_point_analysis"] });
      const expected = await db().aiRuntimeJob.findMany({
        where: { status: { in: status }, jobType: "weak_point_analysis", params: { path: ["gen"], equals: tag } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: { id: true },
      });
      expect(expected.length, status.join()).toBeGreaterThan(3000);
      const { ids } = await walk(filter, "createdAt_desc", 1000);
      expect(ids, status.join()).toEqual(expected.map((r) => r.id));
      const asc = await walk(filter, "createdAt_asc", 1500);
      expect(asc.ids, status.join()).toEqual([...ids].reverse());
      const count = await countJobs(filter);
      expect(count, status.join()).toEqual({
        total: Math.min(expected.length, COUNT_CAP),
        capped: expected.length > COUNT_CAP,
      });
    }
    // A succeeded job that carries an error code (from a failed attempt before) is succeeded, not failed.
    const succeededWithCode = `${tag}_70`;
    expect((await walk(mine({ status: ["succeeded"], errorCode: "MODEL_RATE_LIMIT" }))).ids).toContain(
      succeededWithCode,
    );
    expect((await walk(mine({ status: ["failed", "cancelled"], errorCode: "MODEL_RATE_LIMIT" }))).ids).toEqual([]);
  });

  it("filters by user (id or email), error code, Runtime instance and time range", async () => {
    const byId = await countJobs(mine({ user: other.user.id }));
    const byEmail = await countJobs(mine({ user: other.user.email.toUpperCase() }));
    expect(byId.total).toBe(N / 50);
    expect(byEmail.total).toBe(N / 50);
    const code = await db().aiRuntimeJob.count({
      where: { errorCode: "MODEL_TIMEOUT", params: { path: ["gen"], equals: tag } },
    });
    expect(code).toBeGreaterThan(1000);
    expect((await countJobs(mine({ errorCode: "MODEL_TIMEOUT" }))).total).toBe(code);
    expect((await walk({ runtimeId: `${tag}-rt` })).ids.length).toBe(N / 100);
    // 2026-01-01 + g minutes: g in 61..120 is the hour from 01:00 (inclusive) to 02:00 (exclusive).
    const hour = await walk(mine({ createdFrom: "2026-01-01T01:00:00.000Z", createdTo: "2026-01-01T02:00:00.000Z" }));
    expect(hour.ids.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `${tag}_${60 + i}`).sort());
  });

  it("search finds a job by id, idempotency key, user email, and a field in params or output", async () => {
    const target = `${tag}_4242`;
    expect(
      (await exploreJobs({ filter: { q: target }, sort: "createdAt_desc", limit: 10 })).items.map((r) => r.id),
    ).toEqual([target]);
    expect(
      (await exploreJobs({ filter: { q: `${tag}-key-4242` }, sort: "createdAt_desc", limit: 10 })).items.map(
        (r) => r.id,
      ),
    ).toEqual([target]);
    expect((await countJobs(mine({ q: other.user.email }))).total).toBe(N / 50);
    const byParam = await exploreJobs({
      filter: { json: { in: "params", path: "n", value: "4242" } },
      sort: "createdAt_desc",
      limit: 10,
    });
    expect(byParam.items.map((r) => r.id)).toContain(target);
    const page = await exploreJobs({ filter: { q: target }, sort: "createdAt_desc", limit: 1 });
    expect(page.items[0]).toMatchObject({ attemptNo: 1 + (4242 % 3), status: STATES[4242 % 7] });
    // Output search: a real result row on one generated job.
    await db().aiRuntimeResult.create({
      data: {
        jobId: target,
        attemptNo: 1,
        output: { summary: { mood: tag } },
        outputHash: tag,
        outputSchemaVersion: "v1",
      },
    });
    const byOutput = await exploreJobs({
      filter: { json: { in: "output", path: "summary.mood", value: tag } },
      sort: "createdAt_desc",
      limit: 10,
    });
    expect(byOutput.items.map((r) => r.id)).toEqual([target]);
    expect((await countJobs({ q: "nobody@nowhere.example" })).total).toBe(0);
  });

  it("the row carries attempts and the last error", async () => {
    const row = (await exploreJobs({ filter: { q: `${tag}_10` }, sort: "createdAt_desc", limit: 1 })).items[0]!;
    expect(row).toMatchObject({
      status: "failed",
      errorCode: "MODEL_TIMEOUT",
      errorMessage: "attempt failed",
      attemptNo: 2,
      userEmail: learner.user.email,
    });
  });

  const plans: [string, JobFilter][] = [
    ["first page, no filter", {}],
    ["state", { status: ["failed"] }],
    ["type", { jobType: ["flashcard_generation"] }],
    ["state and type", { status: ["failed"], jobType: ["quiz_generation"] }],
    ["live state", { status: ["running"] }],
    ["live states and type", { status: ["pending", "locked"], jobType: ["quiz_generation"] }],
    ["succeeded", { status: ["succeeded"] }],
    ["mixed states", { status: ["pending", "cancelled", "succeeded"] }],
    ["error code", { errorCode: "INVALID_SCHEMA" }],
    ["search", { q: "some-id" }],
    ["params field", { json: { in: "params", path: "n", value: "77" } }],
    ["runtime instance", { runtimeId: "rt-x" }],
    ["violated rule", { rule: "one_correct_option" }],
  ];
  it.each(plans)("EXPLAIN: %s uses an index, never a sequential scan of the jobs", async (_name, filter) => {
    const explain = async (sql: Prisma.Sql) => {
      const [row] = await db().$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>`EXPLAIN (FORMAT JSON) ${sql}`;
      return nodes(row!["QUERY PLAN"][0].Plan);
    };
    for (const cursor of [
      undefined,
      (await exploreJobs({ filter, sort: "createdAt_desc", limit: 50 })).nextCursor ?? undefined,
    ]) {
      const plan = await explain(await explorerQuery({ filter, sort: "createdAt_desc", limit: 50, cursor }));
      const full = await fullPartitions();
      const onJobs = plan.filter((n) => onJobTable(n["Relation Name"]) && full.has(n["Relation Name"]!));
      expect(onJobs.length).toBeGreaterThan(0);
      expect(onJobs.map((n) => n["Node Type"]).filter((t) => !/Index|Bitmap Heap/.test(t))).toEqual([]);
    }
    const t = performance.now();
    await exploreJobs({ filter, sort: "createdAt_desc", limit: 50 });
    console.log(`[explorer] ${_name}: first page of 50 in ${(performance.now() - t).toFixed(1)} ms over ${N} rows`);
  });

  it("EXPLAIN: a params field reads the params index, which leaves out empty params", async () => {
    // The index is partial (params <> '{}'): usable only because the filter says params are not empty.
    type Named = PlanNode & { "Index Name"?: string };
    const filter: JobFilter = { json: { in: "params", path: "n", value: "77" } };
    const query = await explorerQuery({ filter, sort: "createdAt_desc", limit: 50 });
    const [row] = await db().$queryRaw<{ "QUERY PLAN": [{ Plan: Named }] }[]>`EXPLAIN (FORMAT JSON) ${query}`;
    const named = (nodes(row!["QUERY PLAN"][0].Plan) as Named[]).map((n) => n["Index Name"]).filter(Boolean);
    expect(await parentIndexes(named)).toContain("AiRuntimeJob_params_idx");
    const [pred] = await db().$queryRaw<{ pred: string }[]>`
      SELECT pg_get_expr(i.indpred, i.indrelid) AS pred FROM pg_index i
      WHERE i.indexrelid = '"AiRuntimeJob_params_idx"'::regclass`;
    expect(pred!.pred).toBe("(params <> '{}'::jsonb)");
  });

  type Analyzed = PlanNode & {
    "Index Name"?: string;
    "Actual Rows"?: number;
    "Actual Loops"?: number;
    "Rows Removed by Filter"?: number;
  };
  /** The page's plan, run: the nodes reading the job partitions that hold the jobs, and every index read. */
  async function analyzed(filter: JobFilter) {
    const query = await explorerQuery({ filter, sort: "createdAt_desc", limit: 50 });
    const [row] = await db().$queryRaw<
      { "QUERY PLAN": [{ Plan: Analyzed }] }[]
    >`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`;
    const all = nodes(row!["QUERY PLAN"][0].Plan) as Analyzed[];
    const full = await fullPartitions();
    const onJobs = all.filter((n) => onJobTable(n["Relation Name"]) && full.has(n["Relation Name"]!));
    /** Rows the nodes read, kept or dropped, over all their loops. */
    const read = (ns: Analyzed[]) =>
      ns.reduce(
        (sum, n) => sum + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 1),
        0,
      );
    return { all, onJobs, read };
  }

  it("EXPLAIN ANALYZE: failed jobs of a type that has none read the errors index, not every failure", async () => {
    // knowledge_point_extraction is not among the generated types: the combination is empty. A
    // newest-first walk of the jobs would read every row of the other types to find that out.
    const { onJobs, read } = await analyzed({ status: ["failed"], jobType: ["knowledge_point_extraction"] });
    expect(onJobs.length).toBeGreaterThan(0);
    expect(onJobs.every((n) => n["Index Name"])).toBe(true);
    expect(await parentIndexes(onJobs.map((n) => n["Index Name"]))).toEqual([
      "AiRuntimeJob_errors_jobType_createdAt_id_idx",
    ]);
    // No row of the partitions holding the jobs read or dropped.
    expect(read(onJobs)).toBe(0);
  });

  it("EXPLAIN ANALYZE: a page of cancelled jobs reads the errors index, about as many rows as it shows", async () => {
    const { onJobs, read } = await analyzed({ status: ["cancelled"] });
    expect(onJobs.every((n) => n["Index Name"])).toBe(true);
    expect(await parentIndexes(onJobs.map((n) => n["Index Name"]))).toEqual(["AiRuntimeJob_errors_createdAt_id_idx"]);
    // Failed, cancelled and a few succeeded rows carry a code: 51 cancelled among fewer than 200 read.
    expect(read(onJobs)).toBeLessThan(200);
  });

  it("EXPLAIN ANALYZE: live states read the queue table's index in order and each job by its id", async () => {
    // Running: a page of 51 from the queue's (status, createdAt, jobId), each job by primary key.
    const running = await analyzed({ status: ["running"] });
    const queueIndexes = running.all.filter((n) => n["Relation Name"] === "JobQueue").map((n) => n["Index Name"]);
    expect(queueIndexes).toEqual(["JobQueue_status_createdAt_jobId_idx"]);
    // In the index's order: it stops at the page's 51 rows (a sort would read every running job first).
    expect(running.read(running.all.filter((n) => n["Relation Name"] === "JobQueue"))).toBeLessThanOrEqual(51);
    expect(await parentIndexes(running.onJobs.map((n) => n["Index Name"]))).toEqual(["AiRuntimeJob_pkey"]);
    expect(running.onJobs.every((n) => n["Index Name"])).toBe(true);
    expect(running.read(running.onJobs)).toBeLessThanOrEqual(51);
    // Locked: none among 120k jobs, found out from the queue's index without reading one job.
    const locked = await analyzed({ status: ["locked"] });
    expect(locked.read(locked.onJobs)).toBe(0);
    expect(locked.all.filter((n) => n["Relation Name"] === "JobQueue").map((n) => n["Index Name"])).toEqual([
      "JobQueue_status_createdAt_jobId_idx",
    ]);
  });

  it("EXPLAIN: a search by id, key or user reads each by its own index, never walking the createdAt order", async () => {
    type Named = PlanNode & { "Index Name"?: string };
    for (const q of [`${tag}_4242`, `${tag}-key-4242`, other.user.email]) {
      const [row] = await db().$queryRaw<
        { "QUERY PLAN": [{ Plan: Named }] }[]
      >`EXPLAIN (FORMAT JSON) ${await explorerQuery({ filter: { q }, sort: "createdAt_desc", limit: 50 })}`;
      const full = await fullPartitions();
      const onJobs = (nodes(row!["QUERY PLAN"][0].Plan) as Named[]).filter(
        (n) => onJobTable(n["Relation Name"]) && full.has(n["Relation Name"]!),
      );
      // Every read of the partitions holding the jobs is an index's (a node without one would be a scan).
      expect(onJobs.filter((n) => !n["Index Name"]).map((n) => n["Node Type"])).toEqual([]);
      const used = await parentIndexes(onJobs.map((n) => n["Index Name"]));
      expect(used).toEqual(["AiRuntimeJob_idempotency_idx", "AiRuntimeJob_pkey", "AiRuntimeJob_userId_createdAt_idx"]);
    }
    // The same search with more matches than a page: still the newest first, paged once each.
    const all = await walk({ q: other.user.email }, "createdAt_desc", 700);
    expect(all.ids.length).toBe(N / 50);
    expect(new Set(all.ids).size).toBe(N / 50);
  });

  it("bad input is a 400 with a code, never a 500", async () => {
    const admin = (await createLearner({ role: "admin" })).user;
    const caller = callerAs(admin);
    await expect(caller.admin.explorer.list({ cursor: "garbage" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      caller.admin.explorer.list({
        filter: { createdFrom: "2026-02-01T00:00:00.000Z", createdTo: "2026-01-01T00:00:00.000Z" },
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(
      caller.admin.explorer.list({ filter: { json: { in: "params", path: "a'; drop", value: "1" } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
