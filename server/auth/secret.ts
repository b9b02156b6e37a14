import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The secret better-auth signs its cookies with: BETTER_AUTH_SECRET when set; in zero-setup mode
 * generated once into the git-ignored data folder (like the encryption key), so sessions survive
 * restarts. Production must set it: a generated secret on one instance would not match another's.
 */
export function authSecret(): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error("BETTER_AUTH_SECRET must be at least 32 characters");
    return fromEnv;
  }
  if (process.env.NODE_ENV === "production" && !process.env.ALLOW_GENERATED_AUTH_SECRET)
    throw new Error("BETTER_AUTH_SECRET is required in production");
  const file = path.resolve(process.env.APP_DATA_DIR ?? ".data", "auth-secret");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return fs.readFileSync(file, "utf8").trim();
}
