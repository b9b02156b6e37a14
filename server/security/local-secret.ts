import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isProduction, setting } from "../config";

type SecretName = "BETTER_AUTH_SECRET" | "APP_ENCRYPTION_KEY" | "METRICS_TOKEN";

/**
 * A secret from the environment, or — in zero-setup mode — generated once into the git-ignored
 * data folder (APP_DATA_DIR, default .data) so restarts keep using it. In production a generated
 * secret is refused unless ALLOW_GENERATED_SECRETS=1 (one machine, `npm start`): on several
 * instances each would generate its own.
 */
export function localSecret(opts: { env: SecretName; file: string; bytes?: number }): string {
  const fromEnv = setting(opts.env);
  if (fromEnv) return fromEnv;
  if (isProduction())
    throw new Error(`${opts.env} is required in production (or ALLOW_GENERATED_SECRETS=1 on a single machine)`);
  // turbopackIgnore: a runtime data file, not something the build should trace and bundle.
  const file = path.resolve(/* turbopackIgnore: true */ setting("APP_DATA_DIR"), opts.file);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(opts.bytes ?? 32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return fs.readFileSync(file, "utf8").trim();
}
