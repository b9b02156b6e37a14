import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countJobs, exploreJobs, explorerQuery } from "@/server/admin/explorer";
import { getDb } from "@/server/db";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, type Learner } from "../helpers/factories";
import { fullPartitions, onJobTable } from "../helpers/partitions";

/**
 * The console's search box with Chinese text: learners by name and jobs by the titles of the
 * materials and topics they analyse, as substrings (Chinese has no spaces between words, so a
 * word-boundary or whole-word match would find nothing), each job once, by index on the jobs.
 */
const FILLER = 20_000;
/** Six CJK characters no other test file writes (the database is shared between files). */
const cjkTag = () =>
  [...randomUUID().replace(/-/g, "").slice(0, 6)]
    .map((c) => String.fromCodePoint(0x4e00 + parseInt(c, 16) * 97))
    .join("");

let li: Learner;
let other: Learner;
let tag: string;
const ids = {} as Record<"liUser" | "liMaterial" | "liTopic" | "otherMaterial" | "otherUser", string>;
const db = () => getDb();

beforeAll(async () => {
  tag = cjkTag();
  li = await createLearner();
  other = await createLearner();
  await db().user.update({ where: { id: li.user.id }, data: { name: `李${tag}明`, locale: "zh-CN" } });
  await db().material.update({ where: { id: li.material.id }, data: { title: `光合作用${tag}：光反应与暗反应` } });
  await db().knowledgePoint.update({
    where: { id: li.knowledgePoints[1]!.id },
    data: { title: `暗反应${tag}（卡尔文循环）` },
  });
  // The other learner studies a material with the same title: its jobs match the title search too.
  await db().material.update({ where: { id: other.material.id }, data: { title: `光合作用${tag}：复习` } });
  ids.liUser = (await createTestJob(li)).id;
  ids.liMaterial = (
    await createTestJob(li, "weak_point_analysis", { target: { type: "material", id: li.material.id } })
  ).id;
  ids.liTopic = (
    await createTestJob(li, "quiz_generation", { target: { type: "knowledge_point", id: li.knowledgePoints[1]!.id } })
  ).id;
  ids.otherMaterial = (
    await createTestJob(other, "flashcard_generation", { target: { type: "material", id: other.material.id } })
  ).id;
  ids.otherUser = (await createTestJob(other)).id;
  // Enough other jobs that a plan reading every job would show.
  await db().$executeRaw`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash",
      "idempotencyKey", params, "createdAt", "updatedAt")
    SELECT ${`cjk_${li.user.id}`} || '_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", 'succeeded',
      "inputHash", NULL, '{}'::jsonb, timestamp '2026-01-01' + g * interval '1 minute', now()
    FROM "AiRuntimeJob", generate_series(1, ${FILLER}) g WHERE id = ${ids.otherUser}`;
  await db().$executeRaw`ANALYZE "AiRuntimeJob"`;
}, 120_000);

afterAll(async () => {
  await db().$executeRaw`DELETE FROM "AiRuntimeJob" WHERE "userId" IN (${li.user.id}, ${other.user.id})`;
  await db().$executeRaw`ANALYZE "AiRuntimeJob"`;
}, 60_000);

const search = async (q: string) =>
  (await exploreJobs({ filter: { q }, sort: "createdAt_desc", limit: 50 })).items.map((r) => r.id).sort();

describe("explorer search in Chinese", () => {
  it("finds a learner's jobs by part of their Chinese name, each once", async () => {
    const found = await search(tag);
    // The name 李…明 contains the tag; so do the titles, whose jobs (the other learner's too) come along once each.
    expect(found).toEqual([ids.liUser, ids.liMaterial, ids.liTopic, ids.otherMaterial].sort());
    expect(await search(`李${tag}`)).toEqual([ids.liUser, ids.liMaterial, ids.liTopic].sort());
    expect((await countJobs({ q: `李${tag}` })).total).toBe(3);
  });

  it("finds jobs by part of a material's or topic's Chinese title, across learners", async () => {
    expect(await search(`作用${tag}`)).toEqual([ids.liMaterial, ids.otherMaterial].sort());
    expect(await search(`${tag}（卡尔文`)).toEqual([ids.liTopic]);
    expect(await search(`暗反应${tag}`)).toEqual([ids.liTopic]);
    expect((await countJobs({ q: `作用${tag}` })).total).toBe(2);
  });

  it("treats LIKE wildcards and case as text, and a name nobody has as nothing", async () => {
    expect(await search(`李%明${tag}`)).toEqual([]);
    expect(await search(`李_${tag}`)).toEqual([]);
    expect(await search(`${tag}不存在`)).toEqual([]);
  });

  it("shows the learner's name and language on the row and on the job's page", async () => {
    const row = (await exploreJobs({ filter: { q: `李${tag}` }, sort: "createdAt_desc", limit: 1 })).items[0]!;
    expect(row).toMatchObject({ userName: `李${tag}明`, userLocale: "zh-CN", userEmail: li.user.email });
    const admin = (await createLearner({ role: "admin" })).user;
    const detail = await callerAs(admin).admin.explorer.detail({ jobId: ids.liTopic });
    expect(detail.user).toMatchObject({ name: `李${tag}明`, locale: "zh-CN" });
  });

  it("EXPLAIN: a Chinese name or title search reads the jobs by index only", async () => {
    type Node = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: Node[] };
    const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    for (const q of [`李${tag}`, `作用${tag}`]) {
      const [row] = await db().$queryRaw<
        { "QUERY PLAN": [{ Plan: Node }] }[]
      >`EXPLAIN (FORMAT JSON) ${await explorerQuery({ filter: { q }, sort: "createdAt_desc", limit: 50 })}`;
      const full = await fullPartitions();
      const onJobs = nodes(row!["QUERY PLAN"][0].Plan).filter(
        (n) => onJobTable(n["Relation Name"]) && full.has(n["Relation Name"]!),
      );
      expect(onJobs.length).toBeGreaterThan(0);
      expect(onJobs.map((n) => n["Node Type"]).filter((t) => !/Index|Bitmap Heap/.test(t))).toEqual([]);
    }
  });
});
