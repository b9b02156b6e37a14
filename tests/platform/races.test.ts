import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { uid } from "../helpers/factories";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * Concurrent upserts of one thing make one row: the unique indexes decide, not a read before
 * the write. Each round starts its requests together (Promise.all on a fresh id), many rounds, so
 * the losing interleavings are actually reached.
 */
describe("races", () => {
  it("concurrent PUTs of one learner make one row, exactly one of them answering 201", async () => {
    const api = platform(await serviceKey());
    for (let round = 0; round < 15; round++) {
      const ext = uid("race");
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => api.putLearner(ext, { name: `Racer ${i}`, email: `${ext}@example.test` })),
      );
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([
        200, 200, 200, 200, 200, 200, 200, 201,
      ]);
      expect(await getDb().user.count({ where: { externalId: ext } })).toBe(1);
      expect(await getDb().user.count({ where: { email: `${ext}@example.test` } })).toBe(1);
    }
  }, 60_000);

  it("concurrent PUTs of one material make one material, with one whole knowledge point set", async () => {
    const api = platform(await serviceKey());
    const ext = uid("race");
    await api.putLearner(ext, { name: "Racer" });
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    for (let round = 0; round < 15; round++) {
      const m = uid("mat");
      const sets = [["a", "b", "c"], ["c", "d"], ["b", "e", "f", "a"], ["g"]];
      const answers = await Promise.all(
        sets.map((kps, i) =>
          api.putMaterial(ext, m, {
            title: `T${i}`,
            text: "text",
            knowledgePoints: kps.map((k) => ({ externalId: `${m}-${k}`, title: k })),
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
      const rows = await getDb().material.findMany({
        where: { userId: user.id, externalId: m },
        include: { knowledgePoints: true },
      });
      expect(rows).toHaveLength(1);
      // The last writer's set, whole: never a mix of two.
      const title = rows[0]!.title;
      const expected = sets[Number(title.slice(1))]!.map((k) => `${m}-${k}`).sort();
      expect(rows[0]!.knowledgePoints.map((k) => k.externalId).sort()).toEqual(expected);
    }
  }, 60_000);

  it("concurrent activity batches with the same items store each item once", async () => {
    const api = platform(await serviceKey());
    const ext = uid("race");
    await api.putLearner(ext, { name: "Racer" });
    await api.putMaterial(ext, "m", { title: "M", text: "t", knowledgePoints: [{ externalId: "k", title: "K" }] });
    const batch = {
      quizAttempts: Array.from({ length: 50 }, (_, i) => ({
        externalId: `q${i}`,
        knowledgePointExternalId: "k",
        correct: i % 2 === 0,
        answeredAt: "2026-11-01T10:00:00Z",
      })),
    };
    // A key runs at most INGEST_PER_KEY (2) activity calls at once: the rest are refused 429 and
    // store nothing; the calls let in race each other.
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.activity(ext, batch)));
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(answers.filter((a) => a.status === 200).reduce((n, a) => n + a.body.new, 0)).toBe(50);
    expect(await getDb().quizAttempt.count({ where: { user: { externalId: ext } } })).toBe(50);
  });

  it("concurrent job starts with one idempotency key, or for one analysis, make one job", async () => {
    const api = platform(await serviceKey());
    const ext = uid("race");
    await api.putLearner(ext, { name: "Racer", aiConsent: true });
    const keyed = { jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: "same" };
    const a = await Promise.all(Array.from({ length: 6 }, () => api.startJob(ext, keyed)));
    expect(a.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(a.map((r) => r.body.job.id)).size).toBe(1);
    const plain = { jobType: "weak_point_analysis", target: { type: "user" } };
    const b = await Promise.all(Array.from({ length: 6 }, () => api.startJob(ext, plain)));
    expect(new Set(b.map((r) => r.body.job.id)).size).toBe(1);
    expect(await getDb().aiRuntimeJob.count({ where: { user: { externalId: ext } } })).toBe(2);
  });
});
