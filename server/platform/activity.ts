import type { z } from "zod";
import { getDb } from "../db";
import { withSlot } from "../bulkheads";
import { AppError } from "../errors";
import { internalIds } from "./materials";
import { storePlatformReviews } from "../review/ingest";
import type { activityAnswer, activityBody } from "./schemas";

type Parsed = z.infer<typeof activityBody>;
type ActivityInput = Omit<Parsed, "reviews"> & { reviews?: Parsed["reviews"] };

/**
 * Stores a batch of quiz attempts, study sessions and card reviews (POST /api/v1/learners/{id}/activity). Every
 * item carries the platform's id: one INSERT … ON CONFLICT (userId, externalId) DO NOTHING per
 * kind stores the new ones and skips repeats (sent before, or twice in this batch), so a retried
 * call stores nothing twice and the answer says how many were new. A reference to a knowledge
 * point or material the learner does not have refuses the whole batch (422), before any write.
 */
export async function recordActivity(
  userId: string,
  input: ActivityInput,
  keyId?: string,
): Promise<z.infer<typeof activityAnswer>> {
  // At most INGEST_PER_KEY calls of one key and INGEST_PER_INSTANCE in all at once (429 beyond).
  return withSlot("ingest", keyId ? { key: keyId } : {}, () => storeActivity(userId, input));
}

async function storeActivity(userId: string, input: ActivityInput): Promise<z.infer<typeof activityAnswer>> {
  const { quizAttempts: qa, studySessions: ss, reviews: rv = [] } = input;
  const kpIds = await internalIds(userId, "knowledge_point", [
    ...qa.map((a) => a.knowledgePointExternalId),
    ...rv.flatMap((r) => (r.knowledgePointExternalId ? [r.knowledgePointExternalId] : [])),
  ]);
  const materialIds = await internalIds(
    userId,
    "material",
    ss.flatMap((s) => (s.materialExternalId ? [s.materialExternalId] : [])),
  );
  const unknown = [
    ...qa.flatMap((a, i) =>
      kpIds.has(a.knowledgePointExternalId) ? [] : [{ path: `quizAttempts.${i}.knowledgePointExternalId` }],
    ),
    ...ss.flatMap((s, i) =>
      !s.materialExternalId || materialIds.has(s.materialExternalId)
        ? []
        : [{ path: `studySessions.${i}.materialExternalId` }],
    ),
    ...rv.flatMap((r, i) =>
      !r.knowledgePointExternalId || kpIds.has(r.knowledgePointExternalId)
        ? []
        : [{ path: `reviews.${i}.knowledgePointExternalId` }],
    ),
  ];
  if (unknown.length) {
    throw new AppError(
      "UNKNOWN_REFERENCE",
      "the batch names knowledge points or materials this learner does not have (send them with the material first); nothing was stored",
      unknown.slice(0, 20).map((u) => ({ ...u, message: "no such externalId for this learner" })),
    );
  }
  // One transaction: a batch is stored whole or not at all.
  const [newAttempts, newSessions, newReviews] = await getDb().$transaction(async (tx) => [
    qa.length
      ? await tx.$executeRaw`
          INSERT INTO "QuizAttempt" (id, "userId", "externalId", "knowledgePointId", question, correct, "answeredAt")
          SELECT gen_random_uuid()::text, ${userId}, x.ext, kp.id, x.question, x.correct, x.at::timestamptz AT TIME ZONE 'UTC'
          -- Of an item sent twice in one call the first is kept; rows go in in the order of their ids
          -- (the same in every call), so two calls with the same items wait for each other, never deadlock.
          FROM (SELECT DISTINCT ON (ext) * FROM unnest(${qa.map((a) => a.externalId)}::text[],
                      ${qa.map((a) => kpIds.get(a.knowledgePointExternalId)!)}::text[],
                      ${qa.map((a) => a.question ?? "")}::text[], ${qa.map((a) => a.correct)}::boolean[],
                      ${qa.map((a) => a.answeredAt)}::text[]) WITH ORDINALITY AS u(ext, kp, question, correct, at, n)
                ORDER BY ext, n) AS x
          -- Joined, not trusted: an attempt at a knowledge point deleted meanwhile goes with it, as its cascade would take it.
          JOIN "KnowledgePoint" kp ON kp.id = x.kp
          ORDER BY x.ext
          ON CONFLICT ("userId", "externalId") DO NOTHING`
      : 0,
    ss.length
      ? await tx.$executeRaw`
          INSERT INTO "StudySession" (id, "userId", "externalId", "materialId", "startedAt", minutes)
          SELECT gen_random_uuid()::text, ${userId}, x.ext, x.material, x.at::timestamptz AT TIME ZONE 'UTC', x.minutes
          FROM (SELECT DISTINCT ON (ext) * FROM unnest(${ss.map((s) => s.externalId)}::text[],
                      ${ss.map((s) => (s.materialExternalId ? materialIds.get(s.materialExternalId)! : null))}::text[],
                      ${ss.map((s) => s.startedAt)}::text[], ${ss.map((s) => s.minutes)}::int[])
               WITH ORDINALITY AS u(ext, material, at, minutes, n) ORDER BY ext, n) AS x
          ORDER BY x.ext
          ON CONFLICT ("userId", "externalId") DO NOTHING`
      : 0,
    await storePlatformReviews(tx, userId, rv, kpIds),
  ]);
  const received = qa.length + ss.length + rv.length;
  const stored = newAttempts + newSessions + newReviews;
  return {
    quizAttempts: { received: qa.length, new: newAttempts },
    studySessions: { received: ss.length, new: newSessions },
    reviews: { received: rv.length, new: newReviews },
    new: stored,
    repeated: received - stored,
  };
}
