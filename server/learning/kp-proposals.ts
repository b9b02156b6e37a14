import { getDb, type DbOrTx } from "../db";
import { AppError } from "../errors";
import { kpExtractionSchema } from "../job-types/knowledge-point-extraction";
import { titleKey } from "../job-types/knowledge-point-extraction/title-key";
import { KNOWLEDGE_POINTS_PER_MATERIAL, KP_SELECT, kpDescription, kpTitle } from "./materials";

/**
 * The learner's review of a knowledge_point_extraction job: the proposals of a finished job on one
 * of their materials, and accepting some of them as the material's knowledge points. Scoped to the
 * learner: another learner's job or material is not found. A proposal is "present" when the
 * material already has a knowledge point of the same title (trimmed, case- and space-insensitive, an
 * English plural as its singular: "Alkalis" is "Alkali");
 * accepting never adds a second one, so accepting twice, or racing another accept, adds each once.
 */

const TYPE = "knowledge_point_extraction" as const;

/** The learner's own extraction job with its output; refusals are 4xx. */
async function ownExtraction(db: DbOrTx, userId: string, jobId: string) {
  const job = await db.aiRuntimeJob.findFirst({
    where: { id: jobId, userId },
    select: {
      id: true,
      jobType: true,
      status: true,
      targetType: true,
      targetId: true,
      result: { select: { output: true } },
    },
  });
  if (!job) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
  if (job.jobType !== TYPE || job.targetType !== "material")
    throw new AppError("INVALID_REQUEST", `job ${jobId} is not a knowledge point extraction of a material`);
  if (job.status !== "succeeded" || !job.result)
    throw new AppError("INVALID_REQUEST", `job ${jobId} has no proposals (it is ${job.status})`);
  return { ...job, proposals: kpExtractionSchema.parse(job.result.output).knowledgePoints };
}

async function titlesOf(db: DbOrTx, materialId: string) {
  const rows = await db.knowledgePoint.findMany({ where: { materialId }, select: { title: true } });
  return Object.assign(new Set(rows.map((r) => titleKey(r.title))), { count: rows.length });
}

/** A finished job's proposals, in order, each marked when the material already has it. */
export async function listProposals(userId: string, jobId: string) {
  const db = getDb();
  const job = await ownExtraction(db, userId, jobId);
  const material = await db.material.findFirst({ where: { id: job.targetId, userId }, select: { id: true } });
  const present = material ? await titlesOf(db, material.id) : new Set<string>();
  return {
    jobId: job.id,
    materialId: job.targetId,
    materialExists: !!material,
    proposals: job.proposals.map((p, index) => ({ index, ...p, present: present.has(titleKey(p.title)) })),
  };
}

/** The learner's latest extraction job on one of their materials (what "Suggest knowledge points" shows), or null. */
export async function latestExtraction(userId: string, materialId: string) {
  const db = getDb();
  const material = await db.material.findFirst({ where: { id: materialId, userId }, select: { id: true } });
  if (!material) throw new AppError("NOT_FOUND", "material not found");
  return db.aiRuntimeJob.findFirst({
    where: { userId, jobType: TYPE, targetType: "material", targetId: materialId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: {
      id: true,
      status: true,
      stage: true,
      progress: true,
      cancelRequested: true,
      errorCode: true,
      errorMessage: true,
    },
  });
}

/**
 * Accepts the proposals at `indexes` (their positions in the job's output) as knowledge points of
 * the job's material, with the summary as description. One transaction holding the material's row
 * (as every knowledge point write does), so two accepts in a race add each title once.
 */
export async function acceptProposals(userId: string, jobId: string, indexes: number[]) {
  if (!indexes.length) throw new AppError("INVALID_REQUEST", "choose at least one proposal");
  if (new Set(indexes).size !== indexes.length) throw new AppError("INVALID_REQUEST", "a proposal is chosen twice");
  return getDb().$transaction(async (tx) => {
    const job = await ownExtraction(tx, userId, jobId);
    const bad = indexes.find((i) => !Number.isInteger(i) || i < 0 || i >= job.proposals.length);
    if (bad !== undefined) throw new AppError("INVALID_REQUEST", `there is no proposal ${bad}`);
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Material" WHERE id = ${job.targetId} AND "userId" = ${userId} FOR UPDATE`;
    if (!locked.length) throw new AppError("NOT_FOUND", "the job's material no longer exists");
    const present = await titlesOf(tx, job.targetId);
    const fresh = [...indexes]
      .sort((a, b) => a - b)
      .map((i) => job.proposals[i]!)
      .filter((p) => !present.has(titleKey(p.title)) && present.add(titleKey(p.title)));
    if (present.count + fresh.length > KNOWLEDGE_POINTS_PER_MATERIAL)
      throw new AppError("INVALID_REQUEST", `at most ${KNOWLEDGE_POINTS_PER_MATERIAL} knowledge points per material`);
    const added = [];
    // One at a time so that createdAt order is the proposals' order.
    for (const p of fresh)
      added.push(
        await tx.knowledgePoint.create({
          data: { userId, materialId: job.targetId, title: kpTitle(p.title), description: kpDescription(p.summary) },
          select: KP_SELECT,
        }),
      );
    return { materialId: job.targetId, added, alreadyPresent: indexes.length - added.length };
  });
}
