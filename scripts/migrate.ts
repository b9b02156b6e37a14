import { createMigration, deployMigrations } from "./lib/migrator";
import { withDatabase } from "./lib/database-url";

// Usage: tsx scripts/migrate.ts deploy | create <name>
const [command, name] = process.argv.slice(2);
await withDatabase(async (url) => {
  if (command === "create") {
    const dir = await createMigration(url, name ?? "change");
    console.log(dir ? `created ${dir}` : "schema and migrations agree: nothing to create");
  } else {
    const applied = await deployMigrations(url);
    console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
  }
});
