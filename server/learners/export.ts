import { getPrimaryDb, type DbOrTx } from "../db";
import { setting } from "../config";
import { openExport, type ExportTenant } from "../bulkheads";
import { now } from "../clock";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { readerOf, type Reader, type ReadSource } from "../read-replica";
import { assertStorableUserId, auditActorId, type DataRightsActor } from "./actor";
import { afterRow, EXPORT_SECTIONS } from "./export-sections";
import { jsonWriter } from "./json-stream";

export const EXPORT_FORMAT = "ai-job-runtime/learner-export";
export const EXPORT_VERSION = 1;

/**
 * Everything stored about one learner (docs/contract.md#learners-and-their-data, data rights), as one JSON document written as it
 * is read: account fields (no password hash, no session token, no OAuth tokens) and sign-in
 * methods, then the parts of EXPORT_SECTIONS (sessions, consent, credentials as their last four
 * characters only, materials, knowledge points, quiz attempts, study sessions, flashcard marks,
 * next-action ticks, snapshots, jobs with params, results, rejections, usage and events, quota
 * counters and overrides). Other people are not named: events and overrides leave out which admin
 * or Runtime acted.
 *
 * Streamed: a page of rows at a time, as fast as the reader takes it, so memory stays flat with
 * the learner's size (docs/data-rights.md has the measurement). Each page is one short statement
 * and no connection or transaction is held while the reader is behind: a page follows the last
 * row of the one before (export-sections.ts), so every row is written once, as it stood when its
 * page was read. A reader slower than EXPORT_MIN_BYTES_PER_SECOND (over EXPORT_RATE_WINDOW_MS)
 * or a download longer than EXPORT_MAX_SECONDS is ended (json-stream.ts). Each tenant (the person
 * asking, or the service key) has at most EXPORTS_PER_LEARNER or EXPORTS_PER_KEY downloads open:
 * one more is 429 with a Retry-After the deadlines keep, before anything is read. Every page is
 * read in a turn of the process's EXPORTS_PER_INSTANCE, shared fairly between tenants
 * (server/bulkheads.ts): a download waiting on its reader holds none. An unknown learner is NOT_FOUND (also right after an erasure) and an admin account is
 * FORBIDDEN to anyone but its owner (erasure refuses admins too): both before the first byte.
 * Audited ("learner.export") before anything is sent, so a download cut short is on record as well.
 *
 * Everything is read on the primary, unless `standby` (an admin's download): then the pages come
 * from the standby of DATABASE_READ_URL when it serves reads as the console's do (readerOf), and
 * `readFrom` says where they came from. The account, its checks and the audit row stay on the
 * primary either way, so a learner erased a moment ago is not found and the row is written.
 */
export async function exportLearnerStream(
  userId: string,
  actor: DataRightsActor,
  opts: { standby?: boolean } = {},
): Promise<{ exportedAt: Date; stream: ReadableStream<Uint8Array>; readFrom?: ReadSource }> {
  assertStorableUserId(userId);
  const share = openExport(exportTenant(actor));
  const give = share.close;
  try {
    const db = getPrimaryDb();
    const user = await share.turn(() => accountOf(db, userId));
    if (!user) throw new AppError("NOT_FOUND", "learner not found");
    if (user.role === "admin" && !(actor.type === "learner" && actor.id === userId))
      throw new AppError("FORBIDDEN", "an admin account cannot be exported as a learner");
    await recordAudit(
      {
        actorId: auditActorId(actor, { anonymous: false }),
        action: "learner.export",
        scope: { userId, by: actor.type },
        count: 1,
      },
      db,
    );
    const pages = opts.standby ? await readerOf() : null;
    const readIn: Reader = pages?.read ?? ((statement) => statement(db));
    const read: Reader = (statement) => share.turn(() => readIn(statement));
    const exportedAt = now();
    const out = jsonWriter({
      minBytesPerSecond: setting("EXPORT_MIN_BYTES_PER_SECOND"),
      rateWindowMs: setting("EXPORT_RATE_WINDOW_MS"),
      deadline: share.deadline,
    });
    const written = writeSections(read, userId, out, {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt,
      account: user,
    });
    written.catch((e) => out.fail(e)).finally(give);
    return { exportedAt, stream: out.stream, readFrom: pages?.where };
  } catch (e) {
    give();
    throw e;
  }
}

/**
 * Whose share an export is: the person asking (the learner, or the admin), or the service key.
 * An operator's command is a tenant of its own name.
 */
function exportTenant(actor: DataRightsActor): ExportTenant {
  if (actor.type === "service") return { key: actor.id };
  if (actor.type === "system") return { person: `system:${actor.id}` };
  return { person: actor.id };
}

async function writeSections(
  read: Reader,
  userId: string,
  out: ReturnType<typeof jsonWriter>,
  head: Record<string, unknown>,
) {
  await out.open(head);
  for (const section of EXPORT_SECTIONS) {
    if ("one" in section) {
      await out.field(section.key, await read((db) => section.one(db, userId)));
      continue;
    }
    await out.openList(section.key);
    for (let last: Record<string, unknown> | null = null; ;) {
      const after = afterRow(section.keys, last);
      const rows: Record<string, unknown>[] = await read((db) => section.page(db, userId, after, section.pageSize));
      const shape = section.shape;
      for (const row of shape ? await read(async (db) => shape(db, userId, rows as never[])) : rows)
        await out.item(row);
      if (rows.length < section.pageSize) break;
      last = rows.at(-1)!;
    }
    out.closeList();
  }
  await out.close();
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
