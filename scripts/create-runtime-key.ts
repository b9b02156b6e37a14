import { withDatabase } from "./lib/database-url";

// Usage: npm run runtime-key -- [name]   Prints a new Runtime API key once; only its hash is stored.
// Audited as actor "cli:runtime-key", in the transaction that creates the key.
const name = process.argv[2] ?? "local runtime";
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { createRuntimeKey, CLI_ACTOR } = await import("../server/runtime-keys");
  const { closeDb } = await import("../server/db");
  const key = await createRuntimeKey(name, CLI_ACTOR);
  await closeDb();
  console.log(`Runtime key "${key.name}" (${key.prefix}…) — shown once, store it now:\n${key.key}`);
});
