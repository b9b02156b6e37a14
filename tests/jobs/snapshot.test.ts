import { describe, expect, it } from "vitest";
import { createLearner } from "../helpers/factories";
import { captureSnapshot, readLearningState } from "@/server/jobs/snapshot";
import { snapshotContentSchema } from "@/server/jobs/schemas";
import { getDb } from "@/server/db";

describe("snapshots of the learner's records", () => {
  it("covers everything for the learner, only the material's records for a material, one point for a knowledge point", async () => {
    const learner = await createLearner();
    const db = getDb();
    const other = await db.material.create({
      data: { userId: learner.user.id, title: "Other", content: "Unrelated text" },
    });
    await db.studySession.create({
      data: { userId: learner.user.id, materialId: other.id, startedAt: new Date(), minutes: 5 },
    });

    const all = await readLearningState(db, learner.user.id, { type: "user", id: learner.user.id });
    expect(snapshotContentSchema.parse(all)).toEqual(all);
    expect(all.materials.map((m) => m.title).sort()).toEqual(["Other", "Photosynthesis"]);
    expect(all.knowledgePoints).toHaveLength(3);
    expect(all.quizAttempts).toHaveLength(9);
    expect(all.studySessions).toHaveLength(2);

    const material = await readLearningState(db, learner.user.id, { type: "material", id: learner.material.id });
    expect(material.target.title).toBe("Photosynthesis");
    expect(material.materials.map((m) => m.id)).toEqual([learner.material.id]);
    expect(material.studySessions).toHaveLength(1);

    const kp = learner.knowledgePoints[0]!;
    const point = await readLearningState(db, learner.user.id, { type: "knowledge_point", id: kp.id });
    expect(point.knowledgePoints.map((k) => k.id)).toEqual([kp.id]);
    expect(point.quizAttempts.every((a) => a.knowledgePointId === kp.id)).toBe(true);
    expect(point.quizAttempts).toHaveLength(3);
    // Newest attempts first.
    expect(point.quizAttempts.map((a) => a.answeredAt)).toEqual(
      [...point.quizAttempts.map((a) => a.answeredAt)].sort().reverse(),
    );
  });

  it("stores identical content once and gives changed content a new, immutable row", async () => {
    const learner = await createLearner();
    const db = getDb();
    const target = { type: "user" as const, id: learner.user.id };
    const a = await captureSnapshot(db, learner.user.id, target);
    const b = await captureSnapshot(db, learner.user.id, target);
    expect(b).toEqual(a);
    await db.knowledgePoint.update({ where: { id: learner.knowledgePoints[0]!.id }, data: { title: "Renamed" } });
    const c = await captureSnapshot(db, learner.user.id, target);
    expect(c.id).not.toBe(a.id);
    expect(c.contentHash).not.toBe(a.contentHash);
    const old = await db.snapshot.findUniqueOrThrow({ where: { id: a.id } });
    expect(JSON.stringify(old.content)).not.toContain("Renamed");
  });
});
