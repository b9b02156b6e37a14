import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { hashPassword } from "better-auth/crypto";

/** The browser tests' database: scripts/e2e-server.ts leaves its URL next to its data. */
export function e2eDatabaseUrl() {
  const port = Number(process.env.E2E_PORT ?? 3400);
  return fs.readFileSync(path.join(process.cwd(), ".data", `e2e-${port}.database-url`), "utf8").trim();
}

/** The e2e server's BETTER_AUTH_SECRET (scripts/e2e-server.ts leaves it beside the database URL). */
export function e2eAuthSecret() {
  const port = Number(process.env.E2E_PORT ?? 3400);
  return fs.readFileSync(path.join(process.cwd(), ".data", `e2e-${port}.auth-secret`), "utf8").trim();
}

/**
 * A brand-new learner (no materials, no knowledge points, no consent, no jobs) with an email and
 * password, written straight into the e2e database: no page makes learners yet (invitations come
 * with another change).
 */
export async function createNewLearner() {
  const url = e2eDatabaseUrl();
  const id = `new_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const email = `${id}@example.test`;
  const password = `pw-${randomUUID()}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "User" (id, email, name, role, "createdAt", "updatedAt") VALUES ($1, $2, $3, 'learner', now(), now())`,
      [id, email, "New Learner"],
    );
    await client.query(
      `INSERT INTO "Account" (id, "accountId", "providerId", "userId", password, "createdAt", "updatedAt")
       VALUES ($1, $2, 'credential', $2, $3, now(), now())`,
      [`acct_${id}`, id, await hashPassword(password)],
    );
  } finally {
    await client.end();
  }
  return { id, email, password };
}
