import { z } from "zod";
import { getDb } from "../db";
import { SUBJECT, erasureSubject } from "./erasure-subject";
import { eraseLearner } from "./erase";

// The erasure ledger: reading it, exporting it, and applying it again (see ./erasure-subject.ts).

export const ledgerEntry = z.strictObject({
  erasureId: z.string().regex(/^erasure_[0-9a-f-]{36}$/),
  erasedAt: z.iso.datetime(),
  subject: z.string().regex(SUBJECT),
});
export type LedgerEntry = z.infer<typeof ledgerEntry>;

/**
 * The ledger as this database's audit log holds it, oldest first, one entry per subject: an
 * erasure re-applied after a restore stands for the one it re-applies (`reapplies`), whose own row
 * the restored database may lack. Erasures recorded before subjects existed cannot be matched and
 * are only counted.
 */
export async function readLedger(): Promise<{ entries: LedgerEntry[]; withoutSubject: number }> {
  const rows = await getDb().$queryRaw<{ scope: Record<string, unknown> | null; createdAt: Date }[]>`
    SELECT scope, "createdAt" FROM "AdminAuditLog" WHERE action = 'learner.erase' ORDER BY "createdAt", id`;
  const entries: LedgerEntry[] = [];
  const seen = new Set<string>();
  let withoutSubject = 0;
  for (const { scope, createdAt } of rows) {
    const entry = ledgerEntry.safeParse({
      erasureId: scope?.reapplies ?? scope?.erasureId,
      erasedAt: createdAt.toISOString(),
      subject: scope?.subject,
    });
    if (!entry.success) withoutSubject++;
    else if (!seen.has(entry.data.subject)) {
      seen.add(entry.data.subject);
      entries.push(entry.data);
    }
  }
  return { entries, withoutSubject };
}

/**
 * Parses ledger files (JSON lines, as `npm run erasures:export` prints them; blank lines are
 * skipped). Every line is checked before anything is erased: one bad line fails the whole input,
 * naming it.
 */
export function parseLedger(texts: { name: string; text: string }[]): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const { name, text } of texts) {
    text.split("\n").forEach((line, i) => {
      if (!line.trim()) return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new Error(`${name}:${i + 1}: not JSON`);
      }
      const entry = ledgerEntry.safeParse(json);
      if (!entry.success) throw new Error(`${name}:${i + 1}: not a ledger entry (${entry.error.issues[0]?.message})`);
      out.push(entry.data);
    });
  }
  return out;
}

export type Reapplied = { erasureId: string; reErasureId: string; counts: Record<string, number> };

/**
 * Erases again every account of this database that a ledger entry names (each subject once).
 * An entry whose account is not here (erased before the backup, or made after it) is passed over.
 * `dryRun` only counts. The new erasure's audit row names the entry it re-applies.
 */
export async function reapplyErasures(entries: LedgerEntry[], opts: { dryRun?: boolean } = {}) {
  const wanted = new Map<string, string>();
  for (const e of entries) if (!wanted.has(e.subject)) wanted.set(e.subject, e.erasureId);
  const users = await getDb().user.findMany({ where: { role: "learner" }, select: { id: true } });
  const found = users.flatMap((u) => {
    const erasureId = wanted.get(erasureSubject(u.id));
    return erasureId ? [{ userId: u.id, erasureId }] : [];
  });
  const reapplied: Reapplied[] = [];
  if (!opts.dryRun)
    for (const { userId, erasureId } of found) {
      const r = await eraseLearner(userId, { type: "system", id: "cli:erasures:reapply" }, { reapplies: erasureId });
      reapplied.push({ erasureId, reErasureId: r.erasureId, counts: r.counts });
    }
  return { entries: wanted.size, found: found.length, reapplied };
}
