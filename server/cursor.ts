import { AppError } from "./errors";
import { isTimeInRange } from "./admin/filter-schema";
import { unstorableReason } from "./security/storable-text";

/**
 * A keyset cursor's position, `createdAt|id`, checked before it reaches SQL: the date must be one
 * PostgreSQL and JavaScript agree on (the explorer's 1970–9999 range: year 0 or year 10000 parse
 * in JavaScript and fail in PostgreSQL) and the id text PostgreSQL can store. Anything else is
 * 400 INVALID_REQUEST "bad cursor", never a 500. Every cursor-taking procedure reads its cursor
 * here (tests/fuzz/cursors.test.ts fuzzes them all).
 */
export function parseCursorPosition(text: string): { createdAt: Date; id: string } {
  const at = text.indexOf("|");
  const createdAt = new Date(at < 0 ? "" : text.slice(0, at));
  const id = text.slice(at + 1);
  if (at < 0 || !id || id.includes("|") || unstorableReason(id) || !isTimeInRange(createdAt.getTime()))
    throw new AppError("INVALID_REQUEST", "bad cursor");
  return { createdAt, id };
}
