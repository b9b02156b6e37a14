import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { eraseLearner } from "@/server/learners/erase";
import { erasureSubject } from "@/server/learners/erasure-subject";
import { parseLedger, readLedger, reapplyErasures, type LedgerEntry } from "@/server/learners/erasure-ledger";
import { createLearner, createTestJob } from "../helpers/factories";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";

/**
 * The erasure ledger (docs/operations.md, "Backup and restore"): an erasure made after a backup is
 * applied again to the restored copy. A restored copy is a database in which the erased learner
 * still exists under the same id; here that is a learner of this database and the ledger entry
 * another database's erasure of them would have written.
 */

/** The entry another database wrote when it erased `userId`. */
const entryFor = (userId: string): LedgerEntry => ({
  erasureId: `erasure_${randomUUID()}`,
  erasedAt: new Date().toISOString(),
  subject: erasureSubject(userId),
});

const exists = async (id: string) => (await getDb().user.count({ where: { id } })) === 1;

describe("the erasure ledger", () => {
  it("an erasure's audit row carries the learner's subject, a keyed hash that does not contain the id", async () => {
    const learner = await createLearner();
    const { erasureId } = await eraseLearner(learner.user.id, { type: "admin", id: "admin_ledger" });
    const [row] = await getDb().adminAuditLog.findMany({
      where: { action: "learner.erase", scope: { path: ["erasureId"], equals: erasureId } },
    });
    expect(row!.scope).toMatchObject({ subject: erasureSubject(learner.user.id) });
    expect(JSON.stringify([row!.actorId, row!.scope])).not.toContain(learner.user.id);
    expect(erasureSubject(learner.user.id)).not.toBe(erasureSubject(`${learner.user.id}x`));
    const { entries } = await readLedger();
    expect(entries).toContainEqual({
      erasureId,
      erasedAt: row!.createdAt.toISOString(),
      subject: erasureSubject(learner.user.id),
    });
  });

  it("re-applies an erasure to a learner still here, once; passes over absent learners and admins", async () => {
    const back = await createLearner();
    const job = await createTestJob(back);
    const bystander = await createLearner();
    const admin = await createLearner({ role: "admin" });
    const ledger = [entryFor(back.user.id), entryFor(admin.user.id), entryFor("user_never_here")];

    const dry = await reapplyErasures(ledger, { dryRun: true });
    expect(dry).toMatchObject({ entries: 3, found: 1, reapplied: [] });
    expect(await exists(back.user.id)).toBe(true);

    const first = await reapplyErasures(ledger);
    expect(first.reapplied).toHaveLength(1);
    expect(first.reapplied[0]).toMatchObject({ erasureId: ledger[0]!.erasureId });
    expect(first.reapplied[0]!.counts).toMatchObject({ jobs: 1, materials: 1, knowledgePoints: 3 });
    expect(await exists(back.user.id)).toBe(false);
    expect(await getDb().aiRuntimeJob.count({ where: { id: job.id } })).toBe(0);
    expect(await exists(bystander.user.id)).toBe(true);
    expect(await exists(admin.user.id)).toBe(true);
    const audit = await getDb().adminAuditLog.findFirstOrThrow({
      where: { action: "learner.erase", scope: { path: ["reapplies"], equals: ledger[0]!.erasureId } },
    });
    expect(audit.actorId).toBe("cli:erasures:reapply");
    expect(audit.scope).toMatchObject({ by: "system", subject: ledger[0]!.subject });

    // The restored database's own ledger now holds the erasure, under its original id.
    expect((await readLedger()).entries).toContainEqual(
      expect.objectContaining({ ...ledger[0], erasedAt: expect.any(String) }),
    );
    expect((await reapplyErasures(ledger)).reapplied).toEqual([]);
  });

  it("refuses a ledger with a bad line whole, naming the line", () => {
    const good = JSON.stringify(entryFor("user_a"));
    expect(() => parseLedger([{ name: "l.jsonl", text: `${good}\n\nnot json\n` }])).toThrow("l.jsonl:3: not JSON");
    for (const bad of [
      { ...entryFor("user_a"), subject: "user_a" },
      { ...entryFor("user_a"), extra: 1 },
      { ...entryFor("user_a"), erasureId: "__proto__" },
      JSON.parse(`{"__proto__": {"x": 1}, "erasureId": "erasure_${randomUUID()}"}`),
    ])
      expect(() => parseLedger([{ name: "l.jsonl", text: `${good}\n${JSON.stringify(bad)}` }])).toThrow(
        /^l\.jsonl:2: not a ledger entry/,
      );
    expect(
      parseLedger([
        { name: "a", text: `${good}\n` },
        { name: "b", text: "" },
      ]),
    ).toHaveLength(1);
  });

  it(
    "npm run erasures:export prints the ledger and erasures:reapply applies it; a bad ledger erases nothing (exit 65)",
    async () => {
      const gone = await createLearner();
      await eraseLearner(gone.user.id, { type: "service", id: "key_ledger" });
      const exported = await runScript("scripts/erasures.ts", ["export"]);
      expect(exported.status).toBe(0);
      const lines = exported.stdout.trim().split("\n");
      expect(lines.map((l) => JSON.parse(l).subject)).toContain(erasureSubject(gone.user.id));

      const back = await createLearner();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ledger-"));
      const file = path.join(dir, "ledger.jsonl");
      fs.writeFileSync(file, `${JSON.stringify(entryFor(back.user.id))}\n{"erasureId": "broken"}\n`);
      const refused = await runScript("scripts/erasures.ts", ["reapply", file]);
      expect(refused.status).toBe(65);
      expect(refused.stderr).toContain(`${file}:2: not a ledger entry`);
      expect(await exists(back.user.id)).toBe(true);

      fs.writeFileSync(file, [...lines, JSON.stringify(entryFor(back.user.id))].join("\n"));
      const applied = await runScript("scripts/erasures.ts", ["reapply", file]);
      expect(applied.status).toBe(0);
      expect(applied.stdout).toMatch(/1 learners erased again$/m);
      expect(await exists(back.user.id)).toBe(false);

      const usage = await runScript("scripts/erasures.ts", ["reapply"]);
      expect(usage.status).toBe(64);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
