import { pathToFileURL } from "node:url";
import { getDb, closeDb } from "../server/db";
import { setConsent } from "../server/jobs/consent";
import { ADMIN, LEARNERS, MATERIALS } from "./seed-data";

const DAY = 86_400_000;

/**
 * Demo data, idempotent: fixed ids, upserts, and a learner's records are only written once.
 * Per-learner copies of the shared materials keep every learner's data their own.
 */
export async function seed() {
  const db = getDb();
  await db.user.upsert({ where: { id: ADMIN.id }, create: { ...ADMIN, role: "admin" }, update: { role: "admin" } });
  for (const learner of LEARNERS) {
    await db.user.upsert({
      where: { id: learner.id },
      create: { id: learner.id, email: learner.email, name: learner.name, role: "learner" },
      update: {},
    });
    if ((await db.material.count({ where: { userId: learner.id } })) > 0) continue;
    const at = Date.now() - learner.daysAgo * DAY;
    for (const m of MATERIALS.filter((m) => learner.materials.includes(m.id))) {
      const materialId = `${m.id}_${learner.id}`;
      await db.material.create({ data: { id: materialId, userId: learner.id, title: m.title, content: m.content } });
      for (const kp of m.kps) {
        const kpId = `${kp.id}_${learner.id}`;
        await db.knowledgePoint.create({
          data: { id: kpId, userId: learner.id, materialId, title: kp.title, description: kp.description },
        });
        const answers = learner.history[kp.id] ?? [];
        await db.quizAttempt.createMany({
          data: answers.map((correct, i) => ({
            userId: learner.id,
            knowledgePointId: kpId,
            question: `${kp.title}: practice question ${i + 1}`,
            correct,
            answeredAt: new Date(at - (answers.length - 1 - i) * DAY),
          })),
        });
      }
    }
    await db.studySession.createMany({
      data: learner.sessions.map((s) => ({
        userId: learner.id,
        materialId: `${s.materialId}_${learner.id}`,
        startedAt: new Date(Date.now() - s.daysAgo * DAY),
        minutes: s.minutes,
      })),
    });
    await setConsent(learner.id, true, { type: "system", id: "seed" });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await seed();
  await closeDb();
  console.log("seeded demo data");
}
