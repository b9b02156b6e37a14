/**
 * What a service key may do (docs/contract.md#learners-and-their-data), one scope per kind of call: learners:write (learners,
 * materials and knowledge points), activity:write, jobs:write, jobs:read, data:export, data:erase.
 * Free of imports: the console's key form reads it too.
 */
export const SCOPES = [
  "learners:write",
  "activity:write",
  "jobs:write",
  "jobs:read",
  "data:export",
  "data:erase",
] as const;
export type Scope = (typeof SCOPES)[number];

/** What a key gets when no scopes are named: everything but erasure, which must be asked for. */
export const DEFAULT_SCOPES: Scope[] = SCOPES.filter((s) => s !== "data:erase");

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
