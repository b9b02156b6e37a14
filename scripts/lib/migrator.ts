import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { ensurePartitions } from "../../server/jobs/partitions";

/**
 * Prisma Migrate without the network: Prisma's own schema engine, compiled to WebAssembly,
 * driven over the pg driver adapter. The layout (prisma/migrations/<ts>_<name>/migration.sql,
 * migration_lock.toml, the _prisma_migrations table) is the standard one, so `prisma migrate
 * deploy` works unchanged wherever the native engine can be downloaded.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
export const SCHEMA_PATH = path.join(ROOT, "prisma/schema.prisma");
export const MIGRATIONS_DIR = path.join(ROOT, "prisma/migrations");

type Engine = {
  applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
  diff(input: unknown): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
};

/** The engine reads Postgres's internal "char" type (OID 18), which adapter-pg cannot map; text can. */
class CharAsTextClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const patch = (res: pg.QueryResult | undefined) => {
      for (const f of res?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
      return res;
    };
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const cb = args[last];
      args[last] = (err: unknown, res: pg.QueryResult) => cb(err, patch(res));
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    return result && typeof result.then === "function" ? result.then(patch) : result;
  }
}

function poolConfig(url: string, database?: string): pg.PoolConfig {
  const u = new URL(url);
  // Separate fields, not a connection string: adapter-pg's own shadow-db helper ignores the
  // database name when given a URL and would use the main database as the "shadow".
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: database ?? decodeURIComponent(u.pathname.slice(1)),
    Client: CharAsTextClient,
    max: 4,
  };
}

/**
 * adapter-pg runs a migration script by splitting it on every ";", which breaks a statement whose
 * body has one (a DO block, a function). The native engine sends the script whole; so do we: one
 * simple-protocol query, which PostgreSQL runs as one implicit transaction.
 */
function wholeScripts<A extends { executeScript(script: string): Promise<void> }>(adapter: A, pool: pg.Pool): A {
  const onError = (adapter as unknown as { onError?: (e: unknown) => never }).onError?.bind(adapter);
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (e) {
      if (onError) onError(e);
      throw e;
    }
  };
  return adapter;
}

function adapterFactory(url: string, pools: pg.Pool[]) {
  const mainPool = new pg.Pool(poolConfig(url));
  pools.push(mainPool);
  const main = new PrismaPg(mainPool);
  return {
    provider: "postgres" as const,
    adapterName: main.adapterName,
    connect: async () => wholeScripts(await main.connect(), mainPool),
    // A throwaway database for diffing the migration history; dropped (FORCE) after its pool ends.
    async connectToShadowDb() {
      const name = `prisma_shadow_${randomUUID().replace(/-/g, "")}`;
      const admin = new pg.Client(poolConfig(url));
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      await admin.end();
      const pool = new pg.Pool(poolConfig(url, name));
      const adapter = wholeScripts(await new PrismaPg(pool).connect(), pool);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose().catch(() => {});
        await pool.end().catch(() => {});
        const c = new pg.Client(poolConfig(url));
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await c.end();
      };
      return adapter;
    },
  };
}

async function loadEngine(url: string, pools: pg.Pool[]): Promise<Engine> {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const glue = await import(gluePath);
  const wasmPath = gluePath.replace(/\.js$/, ".wasm");
  const wasmModule = await WebAssembly.compile(fs.readFileSync(wasmPath));
  const imports: WebAssembly.Imports = {};
  for (const imp of WebAssembly.Module.imports(wasmModule)) imports[imp.module] = glue;
  const instance = await WebAssembly.instantiate(wasmModule, imports);
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  const schema = fs.readFileSync(SCHEMA_PATH, "utf8");
  const log = () => {};
  return glue.SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, schema]] },
    log,
    bindMigrationAwareSqlAdapterFactory(adapterFactory(url, pools) as never),
  );
}

/** The migration folders in order; with `before`, only those that sort before that folder's name. */
function migrationsList(before?: string) {
  const dirs = fs.existsSync(MIGRATIONS_DIR)
    ? fs
        .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
        .filter((d) => d.isDirectory() && (before === undefined || d.name < before))
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: lockPath, content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    // Paths relative to baseDir: the engine records `path` as the migration's name, and Prisma's
    // CLI records the bare directory name.
    migrationDirectories: dirs.map((name) => {
      const file = path.join(MIGRATIONS_DIR, name, "migration.sql");
      return {
        path: name,
        migrationFile: {
          path: path.join(name, "migration.sql"),
          content: fs.existsSync(file)
            ? { tag: "ok", value: fs.readFileSync(file, "utf8") }
            : { tag: "error", value: "missing migration.sql" },
        },
      };
    }),
  };
}

const noFilter = { externalTables: [], externalEnums: [] };
const schemaTarget = () => ({
  tag: "schemaDatamodel",
  files: [{ path: SCHEMA_PATH, content: fs.readFileSync(SCHEMA_PATH, "utf8") }],
});

async function withEngine<T>(url: string, fn: (e: Engine) => Promise<T>): Promise<T> {
  const pools: pg.Pool[] = [];
  const engine = await loadEngine(url, pools);
  try {
    return await fn(engine);
  } finally {
    engine.free();
    // Leave no connection behind: the test runner copies this database as a template next.
    await Promise.all(pools.map((p) => p.end().catch(() => {})));
  }
}

/**
 * Applies every migration not yet recorded in _prisma_migrations, then makes the time partitions
 * of events and results ahead of now (server/jobs/partitions.ts; the daily retention run makes
 * them too), so a fresh deploy writes its first events and results into one. `before` (a
 * migration folder's name) stops short of that migration: the database is left as the release
 * before it had it (a test or bench of that migration on a live instance then runs it).
 */
export async function deployMigrations(url: string, opts: { before?: string } = {}): Promise<string[]> {
  if (opts.before !== undefined && !fs.existsSync(path.join(MIGRATIONS_DIR, opts.before, "migration.sql")))
    throw new Error(`no migration ${opts.before} in ${MIGRATIONS_DIR}`);
  await renameAbsoluteMigrationRows(url);
  const applied = await withEngine(url, async (e) => {
    const out = await e.applyMigrations({ migrationsList: migrationsList(opts.before), filters: noFilter });
    return out.appliedMigrationNames;
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await ensurePartitions(client);
  } finally {
    await client.end();
  }
  return applied;
}

/** Early databases of this project recorded absolute paths as migration names; keep only the directory name. */
async function renameAbsoluteMigrationRows(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
    if (rows[0]?.present)
      await client.query(
        `UPDATE "_prisma_migrations" SET migration_name = regexp_replace(migration_name, '^.*/', '') WHERE migration_name LIKE '%/%'`,
      );
  } finally {
    await client.end();
  }
}

/** SQL that would take the migrations to schema.prisma; "" when they agree. Uses a shadow database. */
export function pendingSchemaChange(url: string): Promise<string> {
  return withEngine(url, async (e) => {
    const out = await e.diff({
      from: { tag: "migrations", ...migrationsList() },
      to: schemaTarget(),
      script: true,
      exitCode: true,
      filters: noFilter,
    });
    return out.exitCode === 2 ? withoutPartitionKeys(out.stdout ?? "") : "";
  });
}

/**
 * The foreign keys from events and results to their job are declared per pair of time partitions
 * (prisma/migrations/…_job_partitions, server/jobs/partitions.ts), where schema.prisma can only
 * name them on the parents: the diff's statements adding those two are not a change.
 */
const PARTITION_KEYS =
  /^-- AddForeignKey\s*\nALTER TABLE "(JobEvent|AiRuntimeResult)" ADD CONSTRAINT "\1_jobId_fkey" FOREIGN KEY \("jobId"\) REFERENCES "AiRuntimeJob"\("id"\) ON DELETE CASCADE ON UPDATE CASCADE;\s*$/gm;

function withoutPartitionKeys(sql: string) {
  const rest = sql.replace(PARTITION_KEYS, "");
  return rest.trim() ? sql.replace(PARTITION_KEYS, "").replace(/\n{3,}/g, "\n\n") : "";
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql for the pending change, if any. */
export async function createMigration(url: string, name: string): Promise<string | null> {
  const sql = await pendingSchemaChange(url);
  if (!sql.trim()) return null;
  const stamp = new Date()
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14);
  const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name.replace(/[^a-z0-9_]/gi, "_")}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "migration.sql"), sql);
  return dir;
}
