import fs from "node:fs";
import { withDatabase } from "./lib/database-url";

/**
 * Usage:
 *   npm run erasures:export                      the erasure ledger of DATABASE_URL, one JSON line per erasure
 *   npm run erasures:reapply -- [--dry-run] <file|-> …   erases again every learner of DATABASE_URL a ledger names
 * The ledger names no one (docs/data-rights.md); keep it outside the database, beside the backups.
 * After restoring a backup, re-apply the ledger before the app starts (docs/operations.md,
 * "Backup and restore"). Needs the APP_ENCRYPTION_KEY the erasures were made under. Re-applied
 * erasures are audited as actor "cli:erasures:reapply". Exit codes: 64 usage, 65 a bad ledger
 * (nothing erased), 1 a failure.
 */
const USAGE = "usage: npm run erasures:export | npm run erasures:reapply -- [--dry-run] <ledger file|-> …";
const [command, ...rest] = process.argv.slice(2);
const dryRun = rest.includes("--dry-run");
const files = rest.filter((a) => a !== "--dry-run");
if (!(command === "export" && rest.length === 0) && !(command === "reapply" && files.length > 0)) {
  console.error(USAGE);
  process.exit(64);
}

await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const ledger = await import("../server/learners/erasure-ledger");
  const { closeDb } = await import("../server/db");
  try {
    if (command === "export") {
      const { entries, withoutSubject } = await ledger.readLedger();
      for (const e of entries) console.log(JSON.stringify(e));
      console.error(`${entries.length} erasures exported`);
      if (withoutSubject) console.error(`${withoutSubject} older erasures have no subject and cannot be re-applied`);
      return;
    }
    let entries;
    try {
      entries = ledger.parseLedger(files.map((f) => ({ name: f, text: fs.readFileSync(f === "-" ? 0 : f, "utf8") })));
    } catch (e) {
      console.error(`erasures:reapply: ${(e as Error).message}; nothing erased`);
      process.exitCode = 65;
      return;
    }
    const r = await ledger.reapplyErasures(entries, { dryRun });
    for (const a of r.reapplied)
      console.log(`re-applied ${a.erasureId} as ${a.reErasureId} ${JSON.stringify(a.counts)}`);
    console.log(
      dryRun
        ? `${r.entries} erasures in the ledger; ${r.found} learners here would be erased again (dry run: nothing changed)`
        : `${r.entries} erasures in the ledger; ${r.reapplied.length} learners erased again`,
    );
  } catch (e) {
    console.error(`erasures:${command} failed: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
});
