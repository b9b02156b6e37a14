import { defineConfig } from "prisma/config";

// Only the CLI reads this file (generate; `prisma migrate deploy` on machines with internet).
// The app connects through the pg driver adapter in server/db.ts, and offline migrations run
// through scripts/migrate.ts with Prisma's schema engine compiled to WebAssembly.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations", seed: "tsx prisma/seed.ts" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/unused" },
});
