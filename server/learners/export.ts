import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { assertStorableUserId, auditActorId, type DataRightsActor } from "./actor";
import { EXPORT_SECTIONS } from "./export-sections";
import { jsonWriter } from "./json-stream";

export const EXPORT_FORMAT = "ai-job-runtime/learner-export";
export const EXPORT_VERSION = 1;

/**
 * Everything stored about one learner (SPEC §10, data rights), as one JSON document written as it
 * is read: account fields (no password hash, no session token, no OAuth tokens) and sign-in
 * methods, then the parts of EXPORT_SECTIONS (sessions, consent, credentials as their last four
 * characters only, materials, knowledge points, quiz attempts, study sessions, flashcard marks,
 * next-action ticks, snapshots, jobs with params, results, rejections, usage and events, quota
 * counters and overrides). Other people are not named: events and overrides leave out which admin
 * or Runtime acted.
 *
 * Streamed: a page of rows at a time, as fast as the reader takes it, so memory stays flat with
 * the learner's size (docs/data-rights.md has the measurement). Read in one REPEATABLE READ
 * transaction, so the parts agree with each other. An unknown learner is NOT_FOUND (also right
 * after an erasure) and an admin account is FORBIDDEN to anyone but its owner (erasure refuses
 * admins too): both before the first byte. Audited ("learner.export") before anything is sent,
 * so a download cut short is on record as well.
 */
export async function exportLearnerStream(
  userId: string,
  actor: DataRightsActor,
): Promise<{ exportedAt: Date; stream: ReadableStream<Uint8Array> }> {
  assertStorableUserId(userId);
  const found = await getDb().user.findUnique({ where: { id: userId }, select: { role: true } });
  if (!found) throw new AppError("NOT_FOUND", "learner not found");
  if (found.role === "admin" && !(actor.type === "learner" && actor.id === userId))
    throw new AppError("FORBIDDEN", "an admin account cannot be exported as a learner");
  await recordAudit({
    actorId: auditActorId(actor, { anonymous: false }),
    action: "learner.export",
    scope: { userId, by: actor.type },
    count: 1,
  });
  const exportedAt = now();
  const out = jsonWriter();
  let started!: (ok: boolean) => void;
  const head = new Promise<boolean>((resolve) => (started = resolve));
  const written = getDb().$transaction(
    async (tx) => {
      const user = await accountOf(tx, userId);
      if (!user) throw new AppError("NOT_FOUND", "learner not found");
      started(true);
      await out.open({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt, account: user });
      for (const section of EXPORT_SECTIONS) {
        if ("one" in section) {
          await out.field(section.key, await section.one(tx, userId));
          continue;
        }
        await out.openList(section.key);
        for (let skip = 0; ; skip += section.pageSize) {
          const rows = await section.page(tx, userId, skip, section.pageSize);
          for (const row of section.shape ? await section.shape(tx, userId, rows) : rows) await out.item(row);
          if (rows.length < section.pageSize) break;
        }
        out.closeList();
      }
      await out.close();
    },
    // Held while the reader downloads: a reader that stalls past this loses the connection.
    { isolationLevel: "RepeatableRead", timeout: 600_000, maxWait: 10_000 },
  );
  written.catch((e) => {
    started(false);
    out.fail(e);
  });
  if (!(await head)) await written;
  return { exportedAt, stream: out.stream };
}

async function accountOf(tx: DbOrTx, userId: string) {
  const user = await tx.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      locale: true,
      timeZone: true,
      reviewNewPerDay: true,
      reviewMaxPerDay: true,
      digestOptIn: true,
      digestHour: true,
      externalId: true,
      emailVerified: true,
      image: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  if (!user) return null;
  const signInMethods = await tx.account.findMany({
    where: { userId },
    select: { providerId: true, accountId: true, scope: true, createdAt: true, updatedAt: true },
    orderBy: { createdAt: "asc" },
  });
  return { ...user, signInMethods };
}

/** The whole export as one object (for scripts and tests; the doors stream it). */
export async function exportLearnerData(userId: string, actor: DataRightsActor) {
  const { stream } = await exportLearnerStream(userId, actor);
  return JSON.parse(await new Response(stream).text()) as Record<string, unknown> & { account: { id: string } };
}
