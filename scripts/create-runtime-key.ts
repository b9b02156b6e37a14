import { parseArgs } from "node:util";
import { withDatabase } from "./lib/database-url";

// Usage: npm run runtime-key -- [name] [--job-types t1,t2] [--learner-keys]
//          Prints a new Runtime API key once; only its hash is stored. Scopes (docs/contract.md#consent-credentials-and-cancellation): by default
//          every job type and no learners' own keys.
//        npm run runtime-key -- --set <key id> [--job-types t1,t2|all] [--learner-keys|--no-learner-keys]
//          Changes an existing key's scopes.
// Audited as actor "cli:runtime-key", in the transaction that makes the change.
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "job-types": { type: "string" },
    "learner-keys": { type: "boolean" },
    "no-learner-keys": { type: "boolean" },
    set: { type: "string" },
  },
});
const jobTypes =
  values["job-types"] === undefined
    ? undefined
    : values["job-types"] === "all"
      ? []
      : values["job-types"]
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
const learnerKeys = values["learner-keys"] ? true : values["no-learner-keys"] ? false : undefined;
const scope = {
  ...(jobTypes === undefined ? {} : { jobTypes }),
  ...(learnerKeys === undefined ? {} : { mayReceiveLearnerKeys: learnerKeys }),
} as { jobTypes?: never[]; mayReceiveLearnerKeys?: boolean };
const describe = (s: { jobTypes: string[]; mayReceiveLearnerKeys: boolean }) =>
  `job types: ${s.jobTypes.length ? s.jobTypes.join(", ") : "all"}; learners' own keys: ${s.mayReceiveLearnerKeys ? "yes" : "no"}`;

await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { createRuntimeKey, setRuntimeKeyScope, CLI_ACTOR } = await import("../server/runtime-keys");
  const { closeDb } = await import("../server/db");
  try {
    if (values.set) {
      const changed = await setRuntimeKeyScope(values.set, scope, CLI_ACTOR);
      console.log(`Runtime key ${changed.id}: ${describe(changed)}`);
      return;
    }
    const key = await createRuntimeKey(positionals[0] ?? "local runtime", CLI_ACTOR, scope);
    console.log(`Runtime key "${key.name}" (${key.prefix}…; ${describe(key)}) — shown once, store it now:\n${key.key}`);
  } catch (e) {
    console.error(`runtime-key: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
});
