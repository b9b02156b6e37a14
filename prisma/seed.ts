import { pathToFileURL } from "node:url";
import { getDb, closeDb } from "../server/db";
import { isProduction } from "../server/config";
import { setConsent } from "../server/jobs/consent";
import { hashPassword } from "better-auth/crypto";
import { ADMIN, DEMO_PASSWORDS, LEARNERS, MATERIALS } from "./seed-data";

const DAY = 86_400_000;

/**
 * Demo data, idempotent: fixed ids, upserts, and a learner's records are only written once.
 * Per-learner copies of the shared materials keep every learner's data their own.
 */
export const SEED_REFUSED =
  "db:seed refuses to run in production (NODE_ENV=production); demo data is for npm run dev / npm run demo";

/** The demo data. Refuses production (demo accounts with published passwords), whoever calls it. */
export async function seed() {
  if (isProduction()) throw new Error(SEED_REFUSED);
  const db = getDb();
  await db.user.upsert({ where: { id: ADMIN.id }, create: { ...ADMIN, role: "admin" }, update: { role: "admin" } });
  await ensurePassword(ADMIN.id, DEMO_PASSWORDS.admin);
  for (const learner of LEARNERS) {
    await db.user.upsert({
      where: { id: learner.id },
      create: {
        id: learner.id,
        email: learner.email,
        name: learner.name,
        role: "learner",
        locale: learner.locale ?? null,
      },
      update: {},
    });
    await ensurePassword(learner.id, DEMO_PASSWORDS.learner);
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
            question:
              learner.locale === "zh-CN" ? `${kp.title}：练习题 ${i + 1}` : `${kp.title}: practice question ${i + 1}`,
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

/** better-auth's email + password account: providerId "credential", accountId = the user id, scrypt hash. */
async function ensurePassword(userId: string, password: string) {
  const db = getDb();
  const where = { providerId_accountId: { providerId: "credential", accountId: userId } };
  if (await db.account.findUnique({ where, select: { id: true } })) return;
  await db.account.create({
    data: {
      id: `acct_${userId}`,
      providerId: "credential",
      accountId: userId,
      userId,
      password: await hashPassword(password),
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // Demo accounts with published passwords exist only in dev/demo, never in a production database.
  if (isProduction()) {
    console.error(SEED_REFUSED);
    process.exit(1);
  }
  await seed();
  await closeDb();
  console.log("seeded demo data");
}
