import { APIError } from "better-auth/api";
import { unstorableDetails } from "../security/storable-text";
import { LIMITS, plainLine } from "../security/learner-text";

/**
 * The auth door's share of the input rules: text PostgreSQL cannot store is a 400
 * INVALID_REQUEST naming the field, and a display name is one plain line of at most 100
 * characters (control characters removed) before better-auth writes it.
 */
export function refuseUnstorableBody(body: unknown) {
  const bad = unstorableDetails(body);
  if (bad.length) {
    throw new APIError("BAD_REQUEST", {
      code: "INVALID_REQUEST",
      message: `${bad[0]!.path} ${bad[0]!.message}`,
      details: bad,
    });
  }
}

/** For databaseHooks.user.{create,update}.before: the cleaned name, or a 400 when it is too long or empty. */
export function cleanDisplayName<T extends { name?: unknown }>(data: T): { data: T } {
  if (typeof data.name !== "string") return { data };
  const name = plainLine(data.name);
  if (!name || name.length > LIMITS.displayName) {
    throw new APIError("BAD_REQUEST", {
      code: "INVALID_REQUEST",
      message: `name must be 1 to ${LIMITS.displayName} characters`,
      details: [{ path: "name", message: `1 to ${LIMITS.displayName} characters after removing control characters` }],
    });
  }
  return { data: { ...data, name } };
}
