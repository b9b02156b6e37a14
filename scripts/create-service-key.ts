import { withDatabase } from "./lib/database-url";
import { DEFAULT_SCOPES, isScope, SCOPES, type Scope } from "../server/platform/scopes";

/**
 * Usage: npm run service-key -- <name> [--scopes learners:write,activity:write,…|all]
 * Prints a new platform API service key once, alone on the last line; only its hash is stored.
 * Without --scopes the key gets every scope but data:erase. Audited as actor "cli:service-key",
 * in the transaction that creates the key.
 */
const usage = `usage: npm run service-key -- <name> [--scopes ${SCOPES.join(",")}|all]`;
const args = process.argv.slice(2);
let name: string | undefined;
let scopes: Scope[] = DEFAULT_SCOPES;
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const value = arg.startsWith("--scopes=") ? arg.slice("--scopes=".length) : arg === "--scopes" ? args[++i] : null;
  if (value !== null) {
    const list = (value ?? "").split(/[\s,]+/).filter(Boolean);
    const bad = list.filter((s) => s !== "all" && !isScope(s));
    if (!list.length || bad.length) {
      console.error(`unknown scope(s): ${bad.join(", ") || "(none given)"}\n${usage}`);
      process.exit(64);
    }
    scopes = list.includes("all") ? [...SCOPES] : (list as Scope[]);
  } else if (arg.startsWith("-") || name !== undefined) {
    console.error(usage);
    process.exit(64);
  } else {
    name = arg;
  }
}
if (!name?.trim() || name.length > 100) {
  console.error(`a name of 1 to 100 characters is needed\n${usage}`);
  process.exit(64);
}

await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { createServiceKey, CLI_ACTOR } = await import("../server/platform/service-keys");
  const { closeDb } = await import("../server/db");
  const key = await createServiceKey(name.trim(), scopes, CLI_ACTOR);
  await closeDb();
  console.log(
    `Service key "${key.name}" (${key.prefix}…), scopes ${key.scopes.join(" ")} — shown once, store it now:\n${key.key}`,
  );
});
