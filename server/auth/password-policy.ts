/**
 * THE password rule, for every path that sets a password: better-auth's own endpoints (sign-up,
 * change-password, reset) get the same bounds through its options (auth.ts), and the app's own
 * paths (account.changePassword, invitation acceptance) call passwordProblem. No imports, so the
 * forms can show the same numbers.
 */
export const MIN_PASSWORD_LENGTH = 12;
/** scrypt hashes any length, but an unbounded one is a cheap way to burn a server's CPU. */
export const MAX_PASSWORD_LENGTH = 128;

/** Why a password cannot be used, or null when it can. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== "string") return "the password must be text";
  if (password.length < MIN_PASSWORD_LENGTH) return `the password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password may have at most ${MAX_PASSWORD_LENGTH} characters`;
  if (password.trim() === "") return "the password cannot be only spaces";
  return null;
}
