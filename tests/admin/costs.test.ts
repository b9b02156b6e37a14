import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { estimateCost, getCosts, groupsSql, split, topLearnersSql } from "@/server/admin/costs";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { Prisma } from "@/server/generated/prisma/client";

/**
 * The overview's usage and cost figures. Rows are written straight into
 * JobUsage at dates no other test uses, so the figures are exact whatever else runs.
 */
process.env.MODEL_PRICE_PROMPT_PER_MTOK = "2";
process.env.MODEL_PRICE_COMPLETION_PER_MTOK = "8";
process.env.MODEL_PRICE_PROMPT_CACHE_HIT_PER_MTOK = "0.5";
process.env.MODEL_PRICE_CURRENCY = "EUR";

const AT = new Date("2031-03-15T12:00:00.000Z");
const day = (d: number, h = 10) => new Date(Date.UTC(2031, 2, d, h));

type Row = {
  userId: string;
  jobType: "quiz_generation" | "weak_point_analysis";
  apiKeyMode: "platform_key" | "user_deepseek_key";
  p: number;
  c: number;
  at: Date;
};
const insert = (rows: Row[]) =>
  getDb().jobUsage.createMany({
    data: rows.map((r, i) => ({
      jobId: uid("job"),
      attemptNo: 1 + i,
      userId: r.userId,
      jobType: r.jobType,
      apiKeyMode: r.apiKeyMode,
      provider: "deepseek",
      model: "deepseek-chat",
      promptTokens: r.p,
      completionTokens: r.c,
      durationMs: 10,
      outcome: "succeeded",
      createdAt: r.at,
    })),
  });

describe("usage and cost figures", () => {
  it("sums tokens and estimated cost per UTC day, job type and key mode, and ranks the week's top learners", async () => {
    const [a, b] = [await createLearner(), await createLearner()];
    await insert([
      { userId: a.user.id, jobType: "quiz_generation", apiKeyMode: "platform_key", p: 1000, c: 500, at: day(15, 1) },
      { userId: a.user.id, jobType: "quiz_generation", apiKeyMode: "platform_key", p: 2000, c: 0, at: day(14, 23) },
      {
        userId: b.user.id,
        jobType: "weak_point_analysis",
        apiKeyMode: "user_deepseek_key",
        p: 10_000,
        c: 4000,
        at: day(10),
      },
      { userId: a.user.id, jobType: "weak_point_analysis", apiKeyMode: "platform_key", p: 100, c: 100, at: day(5) },
      // Outside the 14 days (before 2 March) and in the future of AT: not counted anywhere.
      { userId: b.user.id, jobType: "quiz_generation", apiKeyMode: "platform_key", p: 99_999, c: 0, at: day(1, 23) },
      { userId: b.user.id, jobType: "quiz_generation", apiKeyMode: "platform_key", p: 77_777, c: 0, at: day(15, 13) },
    ]);
    const c = await getCosts(AT);
    expect(c.currency).toBe("EUR");
    expect(c.from.toISOString()).toBe("2031-03-02T00:00:00.000Z");
    expect(c.byDay).toHaveLength(14);
    const d = (n: number) => c.byDay.find((x) => x.day.getTime() === Date.UTC(2031, 2, n))!;
    expect(d(15)).toMatchObject({ promptTokens: 1000, completionTokens: 500, tokens: 1500, attempts: 1 });
    expect(d(15).cost).toBeCloseTo((1000 * 2 + 500 * 8) / 1e6, 12);
    expect(d(14)).toMatchObject({ tokens: 2000, attempts: 1 });
    expect(d(11)).toMatchObject({ tokens: 0, attempts: 0, cost: 0 });
    expect(c.total).toMatchObject({ promptTokens: 13_100, completionTokens: 4600, tokens: 17_700, attempts: 4 });
    expect(c.total.cost).toBeCloseTo(estimateCost(13_100, 4600), 12);
    expect(c.byType).toEqual([
      expect.objectContaining({ jobType: "weak_point_analysis", tokens: 14_200, attempts: 2 }),
      expect.objectContaining({ jobType: "quiz_generation", tokens: 3500, attempts: 2 }),
    ]);
    expect(c.byKeyMode).toEqual([
      expect.objectContaining({ apiKeyMode: "user_deepseek_key", tokens: 14_000, cost: (10_000 * 2 + 4000 * 8) / 1e6 }),
      expect.objectContaining({ apiKeyMode: "platform_key", tokens: 3700 }),
    ]);
    // The week is the 7 days before AT: 5 March is outside it.
    expect(c.topLearners.map((l) => [l.email, l.tokens])).toEqual([
      [b.user.email, 14_000],
      [a.user.email, 3500],
    ]);
  });

  it("prices prompt-cache hits at the cache price and shows their share and the money saved, from rows and rollups alike", async () => {
    const at = new Date("2024-07-15T12:00:00.000Z");
    const learner = await createLearner();
    const base = {
      jobType: "quiz_generation",
      apiKeyMode: "platform_key",
      provider: "deepseek",
      outcome: "succeeded",
    } as const;
    await getDb().jobUsage.createMany({
      data: [
        // A day that is over (folded into the day rollups) and today (read from the rows).
        {
          createdAt: new Date(Date.UTC(2024, 6, 10, 9)),
          promptTokens: 10_000,
          cacheHitTokens: 8000,
          cacheMissTokens: 2000,
        },
        { createdAt: new Date(Date.UTC(2024, 6, 15, 9)), promptTokens: 6000, cacheHitTokens: 0, cacheMissTokens: 6000 },
      ].map((r, i) => ({
        ...base,
        ...r,
        jobId: uid("job"),
        attemptNo: 1 + i,
        userId: learner.user.id,
        completionTokens: 1000,
      })),
    });
    const c = await getCosts(at);
    expect(c.prices).toMatchObject({ promptPerMTok: 2, promptCacheHitPerMTok: 0.5, completionPerMTok: 8 });
    expect(c.total).toMatchObject({ promptTokens: 16_000, cacheHitTokens: 8000, cacheHitShare: 0.5 });
    // 8,000 prompt tokens at 2, 8,000 cache hits at 0.5, 2,000 completion tokens at 8 (per million).
    expect(c.total.cost).toBeCloseTo((8000 * 2 + 8000 * 0.5 + 2000 * 8) / 1e6, 12);
    expect(c.total.cacheSaved).toBeCloseTo((8000 * 1.5) / 1e6, 12);
    const d10 = c.byDay.find((x) => x.day.getTime() === Date.UTC(2024, 6, 10))!;
    expect(d10).toMatchObject({ cacheHitTokens: 8000, cacheHitShare: 0.8 });
    const rolled = await getDb().usageDayRollup.findMany({ where: { day: new Date(Date.UTC(2024, 6, 10)) } });
    expect(rolled.map((r) => Number(r.cacheHitTokens))).toEqual([8000]);
    expect(c.topLearners.find((l) => l.userId === learner.user.id)).toMatchObject({ cacheHitTokens: 8000 });
  });

  it("an empty window shows zeros, not errors", async () => {
    const c = await getCosts(new Date("2032-07-01T00:00:00.000Z"));
    expect(c.total).toMatchObject({ tokens: 0, attempts: 0, cost: 0 });
    expect(c.byDay.every((x) => x.tokens === 0)).toBe(true);
    expect([c.byType, c.byKeyMode, c.topLearners]).toEqual([[], [], []]);
  });
});

describe("Prometheus", () => {
  const scrape = async () => {
    process.env.METRICS_TOKEN = "costs-metrics-token";
    const res = await metricsRoute(
      new Request("http://localhost/api/metrics", { headers: { authorization: "Bearer costs-metrics-token" } }),
    );
    return res.text();
  };
  const sample = (text: string, name: string, labels: Record<string, string>) => {
    const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
    return line ? Number(line.split(" ").pop()) : 0;
  };

  it("ajr_model_estimated_cost_total grows by the stored attempt's estimated cost at the configured prices", async () => {
    const labels = {
      provider: "deepseek",
      job_type: "next_action_planning",
      api_key_mode: "platform_key",
      currency: "EUR",
    };
    const before = sample(await scrape(), "ajr_model_estimated_cost_total", labels);
    const l = await createLearner();
    const job = await createTestJob(l, "next_action_planning");
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);
    const res = await rt.result(
      job.id,
      1,
      validOutput(
        "next_action_planning",
        l.knowledgePoints.map((k) => k.id),
      ),
      {
        usage: { provider: "deepseek", model: "deepseek-chat", promptTokens: 250_000, completionTokens: 125_000 },
      },
    );
    expect(res.status).toBe(200);
    // 0.25 M prompt × 2 + 0.125 M completion × 8 = 1.5 EUR.
    expect(sample(await scrape(), "ajr_model_estimated_cost_total", labels) - before).toBeCloseTo(1.5, 9);
  });
});

describe("the cost queries at volume", () => {
  beforeAll(async () => {
    // 200k usage rows over two years (2022–2023), 40 learners, both key modes, all five types.
    await getDb().$executeRaw`
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", "promptTokens", "completionTokens", outcome, "createdAt")
      SELECT 'bench_' || g, 'benchjob_' || g, 1, 'benchuser_' || (g % 40),
        (ARRAY['learning_state_analysis','weak_point_analysis','next_action_planning','quiz_generation','flashcard_generation'])[1 + g % 5]::"JobType",
        (CASE WHEN g % 3 = 0 THEN 'user_deepseek_key' ELSE 'platform_key' END)::"ApiKeyMode",
        100 + g % 900, g % 500, 'succeeded', timestamp '2022-01-01' + (g * interval '315 seconds')
      FROM generate_series(1, 200000) g`;
    await getDb().$executeRawUnsafe(`ANALYZE "JobUsage"`);
  }, 120_000);

  const plan = async (sql: Prisma.Sql) => {
    const rows = await getDb().$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN ${sql}`;
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  };

  it("per day / type / key mode and the top learners read the createdAt index, not the whole table", async () => {
    const at = new Date("2023-06-15T12:00:00.000Z");
    for (const sql of [
      groupsSql(new Date("2023-06-02T00:00:00.000Z"), at),
      topLearnersSql(new Date("2023-06-08T12:00:00.000Z"), at),
    ]) {
      const p = await plan(sql);
      expect(p).toMatch(
        /Index (Only )?Scan.*"?JobUsage_createdAt_idx"?|Bitmap Index Scan on "?JobUsage_createdAt_idx"?/,
      );
      expect(p).not.toMatch(/Seq Scan on "?JobUsage"?/);
    }
    // And the figures over that volume are right: 14 days of rows 315 s apart.
    const c = await getCosts(at);
    const expected = await getDb().jobUsage.count({
      where: { createdAt: { gte: new Date("2023-06-02T00:00:00.000Z"), lt: at } },
    });
    expect(c.total.attempts).toBe(expected);
    expect(c.topLearners).toHaveLength(10);
  });

  it("days that are over are read from the day rollups, folded once under racing readers, with the same figures as the rows", async () => {
    // Two panels loading at once over days nobody has read yet (2022-09): each day is folded by one of them.
    const at = new Date("2022-09-20T15:30:00.000Z");
    const [c1, c2] = await Promise.all([getCosts(at), getCosts(at)]);
    expect(c2).toEqual(c1);
    const folded = await getDb().$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "UsageDayClosed" WHERE day >= '2022-09-07' AND day < '2022-09-20'`;
    expect(folded[0]!.n).toBe(13);
    // Every figure equals the same queries over the usage rows alone (nothing folded).
    const from = c1.from;
    const rawGroups = await getDb().$queryRaw<{ g: number; attempts: number; promptTokens: number }[]>(
      groupsSql(from, at),
    );
    const rawTotal = rawGroups.find((r) => r.g === 7)!;
    expect(c1.total.attempts).toBe(rawTotal.attempts);
    expect(c1.total.promptTokens).toBe(rawTotal.promptTokens);
    expect(c1.byDay.map((d) => d.attempts)).toEqual(
      c1.byDay.map(
        (d) =>
          rawGroups.find((r) => r.g === 3 && (r as unknown as { day: Date }).day.getTime() === d.day.getTime())
            ?.attempts ?? 0,
      ),
    );
    const rawTop = await getDb().$queryRaw<{ userId: string; promptTokens: number; completionTokens: number }[]>(
      topLearnersSql(new Date(at.getTime() - 7 * 86_400_000), at),
    );
    expect(c1.topLearners.map((l) => [l.userId, l.promptTokens, l.completionTokens])).toEqual(
      rawTop.map((l) => [l.userId, l.promptTokens, l.completionTokens]),
    );
    // And the folded days are not read from the usage rows again: a row slipped into a folded day
    // (which no real write can do: usage rows carry their own transaction's time) is not counted.
    await getDb().$executeRaw`
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", "promptTokens", "completionTokens", outcome, "createdAt")
      VALUES ('late_row', 'late_job', 1, 'benchuser_1', 'quiz_generation', 'platform_key', 5, 5, 'succeeded', '2022-09-10 10:00')`;
    expect((await getCosts(at)).total.attempts).toBe(c1.total.attempts);
  });

  it("the hours of a day not yet over are read from the hour rollups, the last part-hour from the rows, with the same figures", async () => {
    // Today (00:00–15:00 of 2022-08-20 here) and the top learners' first part-day
    // (2022-08-13 16:00–24:00) are whole closed hours; 15:00–15:30 is read live from the rows.
    const at = new Date("2022-08-20T15:30:00.000Z");
    const [c1, c2] = await Promise.all([getCosts(at), getCosts(at)]);
    expect(c2).toEqual(c1);
    const hours = await getDb().$queryRaw<{ today: number; edge: number }[]>`
      SELECT count(*) FILTER (WHERE hour >= '2022-08-20' AND hour < '2022-08-21')::int AS today,
        count(*) FILTER (WHERE hour >= '2022-08-13' AND hour < '2022-08-14')::int AS edge
      FROM "UsageHourClosed"`;
    expect(hours[0]).toEqual({ today: 15, edge: 8 });
    const rolled = await getDb().$queryRaw<{ n: number }[]>`
      SELECT coalesce(sum(attempts), 0)::int AS n FROM "UsageHourRollup" WHERE hour >= '2022-08-20' AND hour < '2022-08-20 15:00'`;
    expect(rolled[0]!.n).toBeGreaterThan(100);
    // Every figure equals the same queries over the usage rows alone.
    const rawGroups = await getDb().$queryRaw<{ g: number; attempts: number; promptTokens: number; day: Date }[]>(
      groupsSql(c1.from, at),
    );
    const rawTotal = rawGroups.find((r) => r.g === 7)!;
    expect(c1.total.attempts).toBe(rawTotal.attempts);
    expect(c1.total.promptTokens).toBe(rawTotal.promptTokens);
    expect(c1.byDay.map((d) => d.attempts)).toEqual(
      c1.byDay.map((d) => rawGroups.find((r) => r.g === 3 && r.day.getTime() === d.day.getTime())?.attempts ?? 0),
    );
    expect(c1.byType.map((t) => [t.jobType, t.attempts, t.promptTokens])).toEqual(
      rawGroups
        .filter((r) => r.g === 5)
        .map((r) => [(r as unknown as { jobType: string }).jobType, r.attempts, r.promptTokens])
        .sort(
          (a, b) => c1.byType.findIndex((t) => t.jobType === a[0]) - c1.byType.findIndex((t) => t.jobType === b[0]),
        ),
    );
    const rawTop = await getDb().$queryRaw<{ userId: string; promptTokens: number; completionTokens: number }[]>(
      topLearnersSql(new Date(at.getTime() - 7 * 86_400_000), at),
    );
    expect(c1.topLearners.map((l) => [l.userId, l.promptTokens, l.completionTokens])).toEqual(
      rawTop.map((l) => [l.userId, l.promptTokens, l.completionTokens]),
    );
    // A row slipped into a folded hour is not read again; one in the last part-hour is (read live).
    const late = (id: string, t: string) => getDb().$executeRaw`
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", "promptTokens", "completionTokens", outcome, "createdAt")
      VALUES (${id}, ${id}, 1, 'benchuser_1', 'quiz_generation', 'platform_key', 5, 5, 'succeeded', ${t}::timestamp(3))`;
    await late("late_in_hour", "2022-08-20 10:00");
    expect((await getCosts(at)).total.attempts).toBe(c1.total.attempts);
    await late("late_in_raw", "2022-08-20 15:10");
    expect((await getCosts(at)).total.attempts).toBe(c1.total.attempts + 1);
  });

  it("splits a window into whole folded days, whole folded hours and raw edges", () => {
    const d = (s: string) => new Date(s);
    const c = split(
      d("2022-08-13T15:30:00Z"),
      d("2022-08-20T15:30:00Z"),
      d("2022-08-20T00:00:00Z"),
      d("2022-08-20T15:00:00Z"),
    );
    expect(c.days).toEqual({ from: d("2022-08-14T00:00:00Z"), to: d("2022-08-20T00:00:00Z") });
    expect(c.hours).toEqual([
      { from: d("2022-08-13T16:00:00Z"), to: d("2022-08-14T00:00:00Z") },
      { from: d("2022-08-20T00:00:00Z"), to: d("2022-08-20T15:00:00Z") },
    ]);
    expect(c.raw).toEqual([
      { from: d("2022-08-13T15:30:00Z"), to: d("2022-08-13T16:00:00Z") },
      { from: d("2022-08-20T15:00:00Z"), to: d("2022-08-20T15:30:00Z") },
    ]);
    // Nothing folded: all raw.
    expect(split(d("2022-08-13T15:30:00Z"), d("2022-08-20T15:30:00Z"), d("2022-08-13T15:30:00Z"))).toEqual({
      days: null,
      hours: [],
      raw: [{ from: d("2022-08-13T15:30:00Z"), to: d("2022-08-20T15:30:00Z") }],
    });
  });
});
