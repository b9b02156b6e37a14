import { withDatabase } from "./lib/database-url";

// `npm run db:seed`: the demo data (idempotent), into DATABASE_URL or the embedded database.
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { seed } = await import("../prisma/seed");
  const { closeDb } = await import("../server/db");
  await seed();
  await closeDb();
  console.log("seeded demo data");
});
