import { withDatabase } from "./lib/database-url";

/**
 * Usage: npm run learner:invite -- <email>
 * Invites a learner: prints the one-time link (valid 7 days, single use) on its LAST line; the
 * server keeps only its hash. Inviting an email again makes a new link and kills the old one.
 * Audited as actor "cli:learner:invite". Refused when SIGNUP_MODE=closed. Uses DATABASE_URL (or
 * the embedded dev database when it is unset); the link's origin is BETTER_AUTH_URL.
 */
const email = process.argv[2];
if (!email || process.argv.length > 3) {
  console.error("usage: npm run learner:invite -- <email>");
  process.exit(64);
}
await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  const { createInvitation } = await import("../server/account/invitations");
  const { closeDb } = await import("../server/db");
  try {
    const sent = await createInvitation(email, null);
    console.log(
      `Invitation for ${sent.email}, valid until ${sent.expiresAt.toISOString()} and for one use. Hand this link to the learner:`,
    );
    console.log(sent.link);
  } catch (e) {
    console.error(`learner:invite failed: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
});
