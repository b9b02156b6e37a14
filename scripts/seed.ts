import { withDatabase } from "./lib/database-url";

// `npm run db:seed`: the demo data (idempotent), into DATABASE_URL or the embedded database.
// Refused in production (NODE_ENV=production without ALLOW_GENERATED_SECRETS=1): exit 1, nothing written.
const { isProduction } = await import("../server/config");
if (isProduction()) {
  const { SEED_REFUSED } = await import("../prisma/seed");
  console.error(SEED_REFUSED);
  process.exit(1);
}
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { seed } = await import("../prisma/seed");
  const { closeDb } = await import("../server/db");
  await seed();
  await closeDb();
  console.log("seeded demo data");
});
