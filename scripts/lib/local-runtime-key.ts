import fs from "node:fs";
import path from "node:path";
import { getDb } from "../../server/db";
import { createRuntimeKey, FULL_SCOPE, setRuntimeKeyScope } from "../../server/runtime-keys";

/**
 * The key the bundled reference Runtime uses in zero-setup mode: created once, kept in the
 * git-ignored data folder, replaced if it was revoked or the database was reset. It has every
 * scope (docs/contract.md#consent-credentials-and-cancellation: the dev and demo reference Runtime may receive learners' own keys); a key made
 * before scopes existed is given them.
 */
export async function ensureLocalRuntimeKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "runtime-key");
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, "utf8").trim();
    const row = await getDb().runtimeApiKey.findFirst({ where: { prefix: key.slice(0, 12), revokedAt: null } });
    if (row) {
      if (!row.mayReceiveLearnerKeys || row.jobTypes.length) await setRuntimeKeyScope(row.id, FULL_SCOPE);
      return key;
    }
  }
  const { key } = await createRuntimeKey("local reference runtime", undefined, FULL_SCOPE);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, key, { mode: 0o600 });
  return key;
}
