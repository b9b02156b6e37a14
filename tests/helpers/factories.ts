import { randomUUID } from "node:crypto";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { createJob, type CreateJobInput } from "@/server/jobs/create";
import { createRuntimeKey, FULL_SCOPE, type KeyScope } from "@/server/runtime-keys";
import type { JobType } from "@/server/generated/prisma/enums";
import { targetTypesOf } from "@/server/job-types";
import { FACTORY_MATERIAL_TEXT } from "./outputs";

export const uid = (prefix = "t") => `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 12)}`;

/** A learner with one material, three knowledge points and some quiz history; consent on by default. */
export async function createLearner(opts: { consent?: boolean; role?: "learner" | "admin" } = {}) {
  const db = getDb();
  const id = uid("user");
  const user = await db.user.create({
    data: { id, email: `${id}@example.test`, name: `Learner ${id}`, role: opts.role ?? "learner" },
  });
  const material = await db.material.create({
    data: { userId: id, title: "Photosynthesis", content: FACTORY_MATERIAL_TEXT },
  });
  const kps = await Promise.all(
    ["Light reactions", "Calvin cycle", "Chlorophyll"].map((title) =>
      db.knowledgePoint.create({ data: { userId: id, materialId: material.id, title, description: `About ${title}` } }),
    ),
  );
  await db.quizAttempt.createMany({
    data: kps.flatMap((kp, i) =>
      [true, i === 0, false].map((correct, n) => ({
        userId: id,
        knowledgePointId: kp.id,
        question: `Q${n} on ${kp.title}`,
        correct,
        answeredAt: new Date(Date.UTC(2026, 10, 1 + n)),
      })),
    ),
  });
  await db.studySession.create({
    data: { userId: id, materialId: material.id, startedAt: new Date(Date.UTC(2026, 10, 2)), minutes: 25 },
  });
  if (opts.consent !== false) await setConsent(id, true, { type: "learner", id });
  return { user, material, knowledgePoints: kps };
}

export type Learner = Awaited<ReturnType<typeof createLearner>>;

export async function createTestJob(
  learner: Learner,
  jobType: JobType = "learning_state_analysis",
  extra: Partial<CreateJobInput> = {},
) {
  const { job } = await createJob({
    userId: learner.user.id,
    jobType,
    // The learner themself, or their material for a type that runs on materials only.
    target: targetTypesOf(jobType).includes("user")
      ? { type: "user", id: learner.user.id }
      : { type: "material", id: learner.material.id },
    // A unique key keeps each call a new job unless a test wants de-duplication.
    idempotencyKey: extra.idempotencyKey === undefined ? uid("key") : extra.idempotencyKey,
    actor: { type: "learner", id: learner.user.id },
    ...extra,
  });
  return job;
}

/** A Runtime key for tests: every scope unless a test narrows it (docs/contract.md#consent-credentials-and-cancellation; tests/runtime-api/key-scopes.test.ts). */
export async function runtimeKey(scope: Partial<KeyScope> = FULL_SCOPE) {
  return (await createRuntimeKey(uid("key"), undefined, scope)).key;
}

export function jobRow(id: string) {
  return getDb().aiRuntimeJob.findUniqueOrThrow({
    where: { id },
    include: { events: { orderBy: { id: "asc" } }, result: true },
  });
}
