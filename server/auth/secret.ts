import { localSecret } from "../security/local-secret";

/**
 * The secret better-auth signs its cookies with: BETTER_AUTH_SECRET when set; in zero-setup mode
 * generated once into the git-ignored data folder (like the encryption key), so sessions survive
 * restarts. Production needs it set (or ALLOW_GENERATED_SECRETS=1 on a single machine): a
 * generated secret on one instance would not match another's.
 */
export function authSecret(): string {
  const secret = localSecret({ env: "BETTER_AUTH_SECRET", file: "auth-secret" });
  if (secret.length < 32) throw new Error("BETTER_AUTH_SECRET must be at least 32 characters");
  return secret;
}
