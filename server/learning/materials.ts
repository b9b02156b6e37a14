import { getDb } from "../db";
import { AppError } from "../errors";
import { LIMITS, plainLine } from "../security/learner-text";

/**
 * A learner's own materials and knowledge points ("My materials", docs/contract.md#learners-and-their-data). Every read and write
 * is scoped to the learner: another learner's material or knowledge point is simply not found.
 *
 * Deleting a material deletes its knowledge points and the quiz attempts on them (they make no
 * sense without the topic); study sessions on it are kept as study time, no longer linked to it.
 * Past jobs and their snapshots are not touched: a snapshot is an immutable copy of what was
 * analysed, so earlier results stay readable after their material is gone.
 */

/** 200 KB of UTF-8 per material text, whether typed, pasted or uploaded. */
export const MATERIAL_TEXT_MAX_BYTES = 200 * 1024;
export const MATERIALS_PER_LEARNER = 500;
export const KNOWLEDGE_POINTS_PER_MATERIAL = 100;
const PREVIEW_CHARS = 160;

// Controls but newline and tab, and the bidi overrides (as server/security/learner-text.ts).
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function cleanTitle(raw: string, what: string, max: number): string {
  const title = plainLine(raw);
  if (!title) throw new AppError("INVALID_REQUEST", `${what} is empty`);
  if (title.length > max) throw new AppError("INVALID_REQUEST", `${what} is longer than ${max} characters`);
  return title;
}

/** Material text: line breaks normalised, controls removed; over 200 KB is PAYLOAD_TOO_LARGE. */
export function cleanMaterialText(raw: string): string {
  if (Buffer.byteLength(raw, "utf8") > MATERIAL_TEXT_MAX_BYTES * 2)
    throw new AppError("PAYLOAD_TOO_LARGE", "the material text is over 200 KB");
  const text = raw.replace(/\r\n?/g, "\n").replace(CONTROLS_BUT_LINES, "").trim();
  if (!text) throw new AppError("INVALID_REQUEST", "the material text is empty");
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MATERIAL_TEXT_MAX_BYTES)
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `the material text is ${Math.ceil(bytes / 1024)} KB; at most 200 KB is allowed`,
      { limitBytes: MATERIAL_TEXT_MAX_BYTES, bytes },
    );
  return text;
}

const materialTitle = (s: string) => cleanTitle(s, "the title", LIMITS.materialTitle);
export const kpTitle = (s: string) => cleanTitle(s, "the knowledge point's title", LIMITS.knowledgePointTitle);
export function kpDescription(s: string | undefined): string {
  const d = (s ?? "").replace(CONTROLS_BUT_LINES, "").trim();
  if (d.length > LIMITS.knowledgePointDescription)
    throw new AppError(
      "INVALID_REQUEST",
      `a description is longer than ${LIMITS.knowledgePointDescription} characters`,
    );
  return d;
}

export const KP_SELECT = { id: true, title: true, description: true, createdAt: true } as const;

/** The learner's materials, newest first, each with a short preview and its knowledge points. */
export async function listMaterials(userId: string) {
  const rows = await getDb().material.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: {
      id: true,
      title: true,
      content: true,
      createdAt: true,
      knowledgePoints: { select: KP_SELECT, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
    },
  });
  return {
    items: rows.map(({ content, ...m }) => ({
      ...m,
      preview: content.slice(0, PREVIEW_CHARS).toWellFormed(),
      textBytes: Buffer.byteLength(content, "utf8"),
    })),
  };
}

async function ownMaterial(userId: string, materialId: string) {
  const m = await getDb().material.findFirst({
    where: { id: materialId, userId },
    select: {
      id: true,
      title: true,
      content: true,
      createdAt: true,
      knowledgePoints: { select: KP_SELECT, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
    },
  });
  if (!m) throw new AppError("NOT_FOUND", "material not found");
  return m;
}

/** One material with its full text (for editing). */
export async function getMaterial(userId: string, materialId: string) {
  const { content, ...m } = await ownMaterial(userId, materialId);
  return { ...m, text: content };
}

export type NewKnowledgePoint = { title: string; description?: string };

/** Adds a material, with its first knowledge points, in one transaction. */
export async function createMaterial(
  userId: string,
  input: { title: string; text: string; knowledgePoints?: NewKnowledgePoint[] },
) {
  const title = materialTitle(input.title);
  const content = cleanMaterialText(input.text);
  const kps = (input.knowledgePoints ?? []).map((k) => ({
    title: kpTitle(k.title),
    description: kpDescription(k.description),
  }));
  if (kps.length > KNOWLEDGE_POINTS_PER_MATERIAL)
    throw new AppError("INVALID_REQUEST", `at most ${KNOWLEDGE_POINTS_PER_MATERIAL} knowledge points per material`);
  const id = await getDb().$transaction(async (tx) => {
    if ((await tx.material.count({ where: { userId } })) >= MATERIALS_PER_LEARNER)
      throw new AppError("INVALID_REQUEST", `at most ${MATERIALS_PER_LEARNER} materials per learner`);
    const m = await tx.material.create({ data: { userId, title, content }, select: { id: true } });
    // One at a time so that createdAt order is the order given.
    for (const k of kps) await tx.knowledgePoint.create({ data: { userId, materialId: m.id, ...k } });
    return m.id;
  });
  return getMaterial(userId, id);
}

/** Changes a material's title and/or text. */
export async function updateMaterial(userId: string, materialId: string, input: { title?: string; text?: string }) {
  const data: { title?: string; content?: string } = {};
  if (input.title !== undefined) data.title = materialTitle(input.title);
  if (input.text !== undefined) data.content = cleanMaterialText(input.text);
  const { count } = await getDb().material.updateMany({ where: { id: materialId, userId }, data });
  if (!count) throw new AppError("NOT_FOUND", "material not found");
  return getMaterial(userId, materialId);
}

/** Deletes a material and its knowledge points (see the file comment for what stays). */
export async function deleteMaterial(userId: string, materialId: string) {
  return getDb().$transaction(async (tx) => {
    const m = await tx.material.findFirst({ where: { id: materialId, userId }, select: { id: true } });
    if (!m) throw new AppError("NOT_FOUND", "material not found");
    // Row lock: a knowledge point added to this material meanwhile waits, then finds it gone.
    await tx.$queryRaw`SELECT id FROM "Material" WHERE id = ${materialId} FOR UPDATE`;
    const kps = await tx.knowledgePoint.deleteMany({ where: { userId, materialId } });
    await tx.studySession.updateMany({ where: { userId, materialId }, data: { materialId: null } });
    await tx.material.delete({ where: { id: materialId } });
    return { id: materialId, deletedKnowledgePoints: kps.count };
  });
}

/** Adds a knowledge point to one of the learner's materials. */
export async function addKnowledgePoint(userId: string, materialId: string, input: NewKnowledgePoint) {
  const title = kpTitle(input.title);
  const description = kpDescription(input.description);
  return getDb().$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Material" WHERE id = ${materialId} AND "userId" = ${userId} FOR UPDATE`;
    if (!locked.length) throw new AppError("NOT_FOUND", "material not found");
    if ((await tx.knowledgePoint.count({ where: { materialId } })) >= KNOWLEDGE_POINTS_PER_MATERIAL)
      throw new AppError("INVALID_REQUEST", `at most ${KNOWLEDGE_POINTS_PER_MATERIAL} knowledge points per material`);
    return tx.knowledgePoint.create({ data: { userId, materialId, title, description }, select: KP_SELECT });
  });
}

/** Renames a knowledge point (and changes its description when one is given). */
export async function renameKnowledgePoint(
  userId: string,
  knowledgePointId: string,
  input: { title: string; description?: string },
) {
  const data = {
    title: kpTitle(input.title),
    ...(input.description === undefined ? {} : { description: kpDescription(input.description) }),
  };
  const { count } = await getDb().knowledgePoint.updateMany({ where: { id: knowledgePointId, userId }, data });
  if (!count) throw new AppError("NOT_FOUND", "knowledge point not found");
  return getDb().knowledgePoint.findUniqueOrThrow({ where: { id: knowledgePointId }, select: KP_SELECT });
}

/** Deletes a knowledge point and the quiz attempts on it. */
export async function deleteKnowledgePoint(userId: string, knowledgePointId: string) {
  const { count } = await getDb().knowledgePoint.deleteMany({ where: { id: knowledgePointId, userId } });
  if (!count) throw new AppError("NOT_FOUND", "knowledge point not found");
  return { id: knowledgePointId };
}
