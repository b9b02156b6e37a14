import { parseArgs } from "node:util";
import { withDatabase } from "./lib/database-url";
import { DEFAULT_SCOPES, isScope, SCOPES, type Scope } from "../server/platform/scopes";

/**
 * Usage: npm run service-key -- <name> [--scopes learners:write,activity:write,…|all]
 *          Prints a new platform API service key once, alone on the last line; only its hash is
 *          stored. Without --scopes the key gets every scope but data:erase.
 *        npm run service-key -- --list
 *          One line per key, newest first: id, name, prefix, scopes, created, last used, revoked.
 *        npm run service-key -- --revoke <id>
 *          Revokes the key: its next call answers 401. Revoking a revoked key changes nothing.
 * Making and revoking are audited as actor "cli:service-key", in the transaction that makes the
 * change, as the console's are. Bad arguments exit 64; an unknown key id exits 1.
 */
const usage = `usage: npm run service-key -- <name> [--scopes ${SCOPES.join(",")}|all]
       npm run service-key -- --list
       npm run service-key -- --revoke <id>`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(64);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { scopes: { type: "string" }, list: { type: "boolean" }, revoke: { type: "string" } },
  });
} catch (e) {
  fail((e as Error).message);
}
const { values, positionals } = parsed;
const modes = [values.list, values.revoke !== undefined, positionals.length > 0].filter(Boolean).length;
if (modes !== 1 || positionals.length > 1 || (values.scopes !== undefined && !positionals.length))
  fail("give a name, --list or --revoke <id>");

function scopesOf(value: string | undefined): Scope[] {
  if (value === undefined) return DEFAULT_SCOPES;
  const list = value.split(/[\s,]+/).filter(Boolean);
  const bad = list.filter((s) => s !== "all" && !isScope(s));
  if (!list.length || bad.length) fail(`unknown scope(s): ${bad.join(", ") || "(none given)"}`);
  return list.includes("all") ? [...SCOPES] : (list as Scope[]);
}
const scopes = scopesOf(values.scopes);
const name = positionals[0]?.trim();
if (positionals.length && (!name || name.length > 100)) fail("a name of 1 to 100 characters is needed");
if (values.revoke !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.revoke)) fail("not a key id");

const day = (d: Date | null) => (d ? d.toISOString().replace(/\.\d+Z$/, "Z") : "-");

await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const keys = await import("../server/platform/service-keys");
  const { closeDb } = await import("../server/db");
  try {
    if (values.list) {
      const rows = await keys.listServiceKeys();
      if (!rows.length) console.log("no service keys");
      for (const k of rows)
        console.log(
          [
            k.id,
            JSON.stringify(k.name),
            `${k.prefix}…`,
            k.scopes.join(","),
            `created ${day(k.createdAt)}`,
            `last used ${day(k.lastUsedAt)}`,
            k.revokedAt ? `revoked ${day(k.revokedAt)}` : "active",
          ].join("  "),
        );
    } else if (values.revoke !== undefined) {
      const { changed } = await keys.revokeServiceKey(values.revoke, keys.CLI_ACTOR);
      console.log(`Service key ${values.revoke} ${changed ? "revoked" : "was already revoked"}`);
    } else {
      const key = await keys.createServiceKey(name!, scopes, keys.CLI_ACTOR);
      console.log(
        `Service key "${key.name}" (${key.prefix}…), scopes ${key.scopes.join(" ")} — shown once, store it now:\n${key.key}`,
      );
    }
  } catch (e) {
    console.error(`service-key: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
});
