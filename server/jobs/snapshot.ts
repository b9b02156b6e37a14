import type { DbOrTx } from "../db";
import { AppError, isUniqueViolation } from "../errors";
import type { TargetType } from "../generated/prisma/enums";
import { hashJson } from "./hashing";
import type { SnapshotContent } from "./schemas";
import { boundedLine, boundedText, LIMITS } from "../security/learner-text";
import { now } from "../clock";
import { readReviewEvidence } from "./review-evidence";
import { cardFacts } from "../learner-model/cards";

/** The newest answers a snapshot carries (and the console's mastery reads): the same evidence. */
export const MAX_ATTEMPTS = 500;
const MAX_SESSIONS = 200;

export type Target = { type: TargetType; id: string };

/** The learner's records that a target covers; a missing or foreign target is TARGET_NOT_FOUND. */
export async function readLearningState(db: DbOrTx, userId: string, target: Target): Promise<SnapshotContent> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, name: true } });
  if (!user) throw new AppError("TARGET_NOT_FOUND", "learner not found");
  let title = user.name;
  let materialIds: string[] | null = null;
  let kpIds: string[] | null = null;

  if (target.type === "user") {
    if (target.id !== userId) throw new AppError("TARGET_NOT_FOUND", "a learner can only analyse themself");
  } else if (target.type === "material") {
    const m = await db.material.findFirst({ where: { id: target.id, userId }, select: { id: true, title: true } });
    if (!m) throw new AppError("TARGET_NOT_FOUND", `material ${target.id} not found`);
    title = m.title;
    materialIds = [m.id];
    kpIds = (await db.knowledgePoint.findMany({ where: { userId, materialId: m.id }, select: { id: true } })).map(
      (k) => k.id,
    );
  } else {
    const k = await db.knowledgePoint.findFirst({
      where: { id: target.id, userId },
      select: { id: true, title: true, materialId: true },
    });
    if (!k) throw new AppError("TARGET_NOT_FOUND", `knowledge point ${target.id} not found`);
    title = k.title;
    kpIds = [k.id];
    materialIds = k.materialId ? [k.materialId] : [];
  }

  const at = now();
  const [materials, knowledgePoints, attempts, sessions, evidence] = await Promise.all([
    db.material.findMany({
      where: { userId, ...(materialIds ? { id: { in: materialIds } } : {}) },
      select: { id: true, title: true, content: true },
      orderBy: { id: "asc" },
    }),
    db.knowledgePoint.findMany({
      where: { userId, ...(kpIds ? { id: { in: kpIds } } : {}) },
      select: { id: true, title: true, description: true, materialId: true },
      orderBy: { id: "asc" },
    }),
    db.quizAttempt.findMany({
      where: { userId, ...(kpIds ? { knowledgePointId: { in: kpIds } } : {}) },
      select: { knowledgePointId: true, question: true, correct: true, answeredAt: true },
      orderBy: [{ answeredAt: "desc" }, { id: "asc" }],
      take: MAX_ATTEMPTS,
    }),
    db.studySession.findMany({
      where: { userId, ...(materialIds ? { materialId: { in: materialIds } } : {}) },
      select: { materialId: true, startedAt: true, minutes: true },
      orderBy: [{ startedAt: "desc" }, { id: "asc" }],
      take: MAX_SESSIONS,
    }),
    readReviewEvidence(db, userId, kpIds, at),
  ]);
  // Evidence only of the points in the snapshot (one created between the reads is in neither).
  const inSnapshot = new Set(knowledgePoints.map((k) => k.id));
  const points = evidence?.knowledgePoints.filter((r) => inSnapshot.has(r.knowledgePointId)) ?? [];
  const reviews = points.length
    ? { asOf: evidence!.asOf, knowledgePoints: points, today: await dayOf(db, userId, target, at) }
    : null;

  // Learner-written text is bounded and plain here, whatever was stored before the limits existed:
  // a snapshot is what a model reads and an admin sees.
  return {
    version: 1,
    learner: { id: user.id, name: boundedLine(user.name, LIMITS.displayName) },
    target: { type: target.type, id: target.id, title: boundedLine(title, LIMITS.materialTitle) },
    materials: materials.map((m) => ({
      id: m.id,
      title: boundedLine(m.title, LIMITS.materialTitle),
      content: boundedText(m.content, LIMITS.materialContent),
    })),
    knowledgePoints: knowledgePoints.map((k) => ({
      ...k,
      title: boundedLine(k.title, LIMITS.knowledgePointTitle),
      description: boundedText(k.description, LIMITS.knowledgePointDescription),
    })),
    quizAttempts: attempts.map((a) => ({
      ...a,
      question: boundedLine(a.question, LIMITS.quizQuestion),
      answeredAt: a.answeredAt.toISOString(),
    })),
    studySessions: sessions.map((s) => ({ ...s, startedAt: s.startedAt.toISOString() })),
    // Only when the target's points have cards: a learner without reviews keeps the snapshot (and
    // its hash) they had before the snapshot carried review evidence.
    ...(reviews ? { reviews } : {}),
  };
}

/**
 * The learner model's day over the target's cards (cardFacts), in the learner's stored time zone:
 * what Review offers now, what falls due later in her day, and what today's limits hold back.
 */
async function dayOf(db: DbOrTx, userId: string, target: Target, at: Date) {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { timeZone: true } });
  const scope =
    target.type === "material"
      ? { materialId: target.id }
      : target.type === "knowledge_point"
        ? { knowledgePointId: target.id }
        : {};
  const facts = await cardFacts(userId, { at, timeZone: user.timeZone, scope }, db);
  return {
    timeZone: facts.timeZone,
    now: facts.now.total,
    laterToday: facts.laterToday,
    heldBack: Math.max(0, facts.dueNow.total - facts.now.total),
  };
}

export type PreparedSnapshot = { target: Target; content: SnapshotContent; contentHash: string };

/** Reads and hashes the target's state without storing anything (a refused request leaves no row). */
export async function prepareSnapshot(db: DbOrTx, userId: string, target: Target): Promise<PreparedSnapshot> {
  const content = await readLearningState(db, userId, target);
  return { target, content, contentHash: hashJson(content) };
}

/** Stores a prepared snapshot; identical content is stored once per learner. */
export async function storeSnapshot(db: DbOrTx, userId: string, prepared: PreparedSnapshot) {
  const { target, content, contentHash } = prepared;
  const where = { userId_contentHash: { userId, contentHash } };
  const existing = await db.snapshot.findUnique({ where, select: { id: true, contentHash: true } });
  if (existing) return existing;
  try {
    return await db.snapshot.create({
      data: { userId, targetType: target.type, targetId: target.id, contentHash, content },
      select: { id: true, contentHash: true },
    });
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return db.snapshot.findUniqueOrThrow({ where, select: { id: true, contentHash: true } });
  }
}

/**
 * Captures the target's state as an immutable, content-hashed snapshot. Identical content is
 * stored once per learner, so repeated triggers on unchanged data share one row.
 */
export async function captureSnapshot(db: DbOrTx, userId: string, target: Target) {
  return storeSnapshot(db, userId, await prepareSnapshot(db, userId, target));
}

const cache = new Map<
  string,
  { contentHash: string; capturedAt: Date; content: SnapshotContent; kpIds: Set<string> }
>();
const CACHE_LIMIT = 2000;

/** Snapshots never change, so a process may keep them; the hot paths (lock, result) read them here. */
export async function getSnapshot(db: DbOrTx, id: string) {
  const hit = cache.get(id);
  if (hit) return hit;
  const row = await db.snapshot.findUnique({
    where: { id },
    select: { contentHash: true, createdAt: true, content: true },
  });
  if (!row) return null;
  const content = row.content as SnapshotContent;
  const value = {
    contentHash: row.contentHash,
    capturedAt: row.createdAt,
    content,
    kpIds: new Set((content.knowledgePoints ?? []).map((k) => k.id)),
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(id, value);
  return value;
}

/** Drops snapshots from this process's cache (erasure: the learner's data must not outlive them in memory). */
export function forgetSnapshots(ids: Iterable<string>) {
  for (const id of ids) cache.delete(id);
}
