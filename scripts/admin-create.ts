import { withDatabase } from "./lib/database-url";

/**
 * Usage: npm run admin:create -- <email>
 * Creates the admin (or promotes / resets an existing account) with a one-time password, printed
 * once here and stored only as a hash; the first sign-in must replace it. Audited as
 * actor "cli:admin:create". Uses DATABASE_URL (or the embedded dev database when it is unset).
 */
const email = process.argv[2];
if (!email || process.argv.length > 3) {
  console.error("usage: npm run admin:create -- <email>");
  process.exit(64);
}
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { createAdmin } = await import("../server/account/admin-create");
  const { closeDb } = await import("../server/db");
  try {
    const admin = await createAdmin(email);
    const what = {
      "admin.create": "created",
      "admin.promote": "promoted to admin",
      "admin.reset_password": "given a new one-time password",
    }[admin.action];
    console.log(
      `Admin ${admin.email} ${what}. One-time password — shown once; it must be changed at the first sign-in:\n${admin.password}`,
    );
  } catch (e) {
    console.error(`admin:create failed: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
});
