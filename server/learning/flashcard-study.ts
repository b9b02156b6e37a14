import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { ownJobOutput } from "./own-output";

/** A pause longer than this starts a new study session. */
export const STUDY_GAP_MINUTES = 30;
/** One session is never counted longer than this, however long a tab stays open. */
const MAX_SESSION_MINUTES = 240;

/** The material a deck was generated from: its target material, or its knowledge point's material. */
async function deckMaterial(userId: string, job: { targetType: string; targetId: string }) {
  const db = getDb();
  if (job.targetType === "material") {
    const m = await db.material.findFirst({ where: { id: job.targetId, userId }, select: { id: true } });
    return m?.id ?? null;
  }
  if (job.targetType === "knowledge_point") {
    const k = await db.knowledgePoint.findFirst({ where: { id: job.targetId, userId }, select: { materialId: true } });
    return k?.materialId ?? null;
  }
  return null;
}

/**
 * Studying a generated deck (flipping or marking a card) is study time: the first flip opens a
 * StudySession on the deck's material (sourceJobId = the deck), later ones within
 * STUDY_GAP_MINUTES stretch it to the minutes since it started. The next snapshot, and so the
 * next analysis, sees it. Serialised per learner and deck (advisory lock), so two tabs make one
 * session, not two.
 */
export async function recordFlashcardStudy(userId: string, jobId: string) {
  await ownJobOutput(userId, jobId, "flashcard_generation", {
    otherType: "this job did not generate flashcards",
    noResult: "this deck has no cards yet",
  });
  const job = await getDb().aiRuntimeJob.findUniqueOrThrow({
    where: { id: jobId },
    select: { targetType: true, targetId: true },
  });
  const materialId = await deckMaterial(userId, job);
  const at = now();
  return getDb().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`flashcard-study:${userId}:${jobId}`}))`;
    const [open] = await tx.$queryRaw<{ id: string; startedAt: Date; minutes: number }[]>(Prisma.sql`
      SELECT id, "startedAt", minutes FROM "StudySession"
      WHERE "userId" = ${userId} AND "sourceJobId" = ${jobId}
        AND "startedAt" + make_interval(mins => minutes + ${STUDY_GAP_MINUTES}) >= ${at}::timestamp(3)
      ORDER BY "startedAt" DESC LIMIT 1`);
    if (!open) {
      const s = await tx.studySession.create({
        data: { userId, materialId, startedAt: at, minutes: 1, sourceJobId: jobId },
        select: { id: true, startedAt: true, minutes: true },
      });
      return { sessionId: s.id, startedAt: s.startedAt, minutes: s.minutes };
    }
    const minutes = Math.min(
      MAX_SESSION_MINUTES,
      Math.max(open.minutes, Math.ceil((at.getTime() - open.startedAt.getTime()) / 60_000)),
    );
    await tx.studySession.update({ where: { id: open.id }, data: { minutes } });
    return { sessionId: open.id, startedAt: open.startedAt, minutes };
  });
}
