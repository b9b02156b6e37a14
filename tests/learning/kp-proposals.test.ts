import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createJob } from "@/server/jobs/create";
import { triggerAnalyses } from "@/server/learning/trigger";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";

const TYPE = "knowledge_point_extraction";
const as = (l: Learner) => callerAs({ ...l.user, role: "learner" });

const titlesOf = async (materialId: string) =>
  (
    await getDb().knowledgePoint.findMany({ where: { materialId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })
  ).map((k) => k.title);

describe("knowledge_point_extraction jobs run on a material only", () => {
  it("refuses a learner or knowledge point target at creation with 400 INVALID_REQUEST, writing nothing", async () => {
    const l = await createLearner();
    const before = await getDb().aiRuntimeJob.count({ where: { userId: l.user.id } });
    for (const target of [
      { type: "user" as const, id: l.user.id },
      { type: "knowledge_point" as const, id: l.knowledgePoints[0]!.id },
    ]) {
      const made = createJob({ userId: l.user.id, jobType: TYPE, target, actor: { type: "learner", id: l.user.id } });
      await expect(made).rejects.toMatchObject({ code: "INVALID_REQUEST", status: 400 });
      await expect(made).rejects.toThrow(/runs on a material, not on a/);
      await expect(codeOf(as(l).analyses.trigger({ target, jobTypes: ["weak_point_analysis", TYPE] }))).resolves.toBe(
        "BAD_REQUEST",
      );
    }
    expect(await getDb().aiRuntimeJob.count({ where: { userId: l.user.id } })).toBe(before);
    expect(await getDb().snapshot.count({ where: { userId: l.user.id } })).toBe(0);
  });

  it("starts on the learner's own material, and not on another learner's", async () => {
    const [a, b] = [await createLearner(), await createLearner()];
    const target = { type: "material" as const, id: a.material.id };
    const { items } = await triggerAnalyses({
      userId: a.user.id,
      actor: { type: "learner", id: a.user.id },
      target,
      jobTypes: [TYPE],
      params: { [TYPE]: { maxPoints: 3 } },
    });
    expect(items[0]).toMatchObject({ jobType: TYPE, created: true, job: { params: { maxPoints: 3 } } });
    await expect(codeOf(as(b).analyses.trigger({ target, jobTypes: [TYPE] }))).resolves.toBe("NOT_FOUND");
    await expect(
      codeOf(as(a).analyses.trigger({ target, jobTypes: [TYPE], params: { [TYPE]: { maxPoints: 21 } } })),
    ).resolves.toBe("BAD_REQUEST");
  });
});

describe("reviewing and accepting proposals", () => {
  it("lists a finished job's proposals, marks the ones the material has, and accepts the ticked ones", async () => {
    const l = await createLearner();
    const job = await succeededJob(l, TYPE);
    const listed = await as(l).materials.proposals({ jobId: job.id });
    expect(listed).toMatchObject({ jobId: job.id, materialId: l.material.id, materialExists: true });
    expect(listed.proposals.map((p) => [p.index, p.title, p.present])).toEqual([
      [0, "Photosynthesis inputs", false],
      [1, "Photosynthesis outputs", false],
    ]);
    const latest = await as(l).materials.latestSuggestion({ materialId: l.material.id });
    expect(latest).toMatchObject({ id: job.id, status: "succeeded" });

    const first = await as(l).materials.acceptProposals({ jobId: job.id, indexes: [1] });
    expect(first.added.map((k) => [k.title, k.description])).toEqual([
      ["Photosynthesis outputs", "Glucose and oxygen."],
    ]);
    expect(first.alreadyPresent).toBe(0);
    expect((await as(l).materials.proposals({ jobId: job.id })).proposals.map((p) => p.present)).toEqual([false, true]);

    // Again, with one already present: only the new one is added; a third time adds nothing.
    const second = await as(l).materials.acceptProposals({ jobId: job.id, indexes: [0, 1] });
    expect([second.added.map((k) => k.title), second.alreadyPresent]).toEqual([["Photosynthesis inputs"], 1]);
    const third = await as(l).materials.acceptProposals({ jobId: job.id, indexes: [1, 0] });
    expect([third.added, third.alreadyPresent]).toEqual([[], 2]);
    expect(await titlesOf(l.material.id)).toEqual([
      ...l.knowledgePoints.map((k) => k.title),
      "Photosynthesis outputs",
      "Photosynthesis inputs",
    ]);
  });

  it("does not add a proposal whose title the material already has, in any case or spacing", async () => {
    const l = await createLearner();
    await getDb().knowledgePoint.create({
      data: { userId: l.user.id, materialId: l.material.id, title: "  photosynthesis   INPUTS", description: "" },
    });
    const job = await succeededJob(l, TYPE);
    expect((await as(l).materials.proposals({ jobId: job.id })).proposals.map((p) => p.present)).toEqual([true, false]);
    const r = await as(l).materials.acceptProposals({ jobId: job.id, indexes: [0] });
    expect([r.added, r.alreadyPresent]).toEqual([[], 1]);
  });

  it("counts an English plural as its singular: a point titled in the singular marks the plural proposal present", async () => {
    const l = await createLearner();
    await getDb().knowledgePoint.create({
      data: { userId: l.user.id, materialId: l.material.id, title: "Photosynthesis input", description: "" },
    });
    const job = await succeededJob(l, TYPE);
    expect((await as(l).materials.proposals({ jobId: job.id })).proposals.map((p) => p.present)).toEqual([true, false]);
    const r = await as(l).materials.acceptProposals({ jobId: job.id, indexes: [0, 1] });
    expect([r.added.map((k) => k.title), r.alreadyPresent]).toEqual([["Photosynthesis outputs"], 1]);
  });

  it("adds each title once when two accepts race", async () => {
    const l = await createLearner();
    const job = await succeededJob(l, TYPE);
    const both = await Promise.all([
      as(l).materials.acceptProposals({ jobId: job.id, indexes: [0, 1] }),
      as(l).materials.acceptProposals({ jobId: job.id, indexes: [1, 0] }),
    ]);
    expect(both.map((r) => r.added.length).sort()).toEqual([0, 2]);
    const titles = await titlesOf(l.material.id);
    expect(titles.filter((t) => t.startsWith("Photosynthesis "))).toEqual([
      "Photosynthesis inputs",
      "Photosynthesis outputs",
    ]);
  });

  it("keeps learners to their own jobs: another learner's job is not found, and nothing is added", async () => {
    const [a, b] = [await createLearner(), await createLearner()];
    const job = await succeededJob(a, TYPE);
    await expect(codeOf(as(b).materials.proposals({ jobId: job.id }))).resolves.toBe("NOT_FOUND");
    await expect(codeOf(as(b).materials.acceptProposals({ jobId: job.id, indexes: [0] }))).resolves.toBe("NOT_FOUND");
    await expect(codeOf(as(b).materials.latestSuggestion({ materialId: a.material.id }))).resolves.toBe("NOT_FOUND");
    expect(await titlesOf(a.material.id)).toEqual(a.knowledgePoints.map((k) => k.title));
  });

  it("refuses bad input with a 4xx and adds nothing", async () => {
    const l = await createLearner();
    const job = await succeededJob(l, TYPE);
    const other = await succeededJob(l, "weak_point_analysis");
    const pending = await createTestJob(l, TYPE);
    const cases: [unknown, string][] = [
      [{ jobId: job.id, indexes: [2] }, "BAD_REQUEST"],
      [{ jobId: job.id, indexes: [0, 0] }, "BAD_REQUEST"],
      [{ jobId: job.id, indexes: [] }, "BAD_REQUEST"],
      [{ jobId: job.id, indexes: [-1] }, "BAD_REQUEST"],
      [{ jobId: job.id, indexes: [0.5] }, "BAD_REQUEST"],
      [{ jobId: job.id, indexes: "0" }, "BAD_REQUEST"],
      [{ jobId: other.id, indexes: [0] }, "BAD_REQUEST"],
      [{ jobId: pending.id, indexes: [0] }, "BAD_REQUEST"],
      [{ jobId: uid("job"), indexes: [0] }, "NOT_FOUND"],
      [{ jobId: "\u0000", indexes: [0] }, "BAD_REQUEST"],
      [{ jobId: "x".repeat(65), indexes: [0] }, "BAD_REQUEST"],
      [{ jobId: "\ud800", indexes: [0] }, "BAD_REQUEST"],
      [{ jobId: "__proto__", indexes: [0] }, "NOT_FOUND"],
    ];
    for (const [input, code] of cases)
      await expect(codeOf(as(l).materials.acceptProposals(input as never)), JSON.stringify(input)).resolves.toBe(code);
    expect(await titlesOf(l.material.id)).toEqual(l.knowledgePoints.map((k) => k.title));
    await expect(codeOf(as(l).materials.proposals({ jobId: other.id }))).resolves.toBe("BAD_REQUEST");
  });

  it("refuses to accept once the material is deleted, and says so in the list", async () => {
    const l = await createLearner();
    const job = await succeededJob(l, TYPE);
    await as(l).materials.delete({ materialId: l.material.id });
    expect(await as(l).materials.proposals({ jobId: job.id })).toMatchObject({ materialExists: false });
    await expect(codeOf(as(l).materials.acceptProposals({ jobId: job.id, indexes: [0] }))).resolves.toBe("NOT_FOUND");
  });
});
