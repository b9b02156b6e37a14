import { Prisma } from "../generated/prisma/client";
import type { Violation } from "./quality";

/** A refused output is kept up to this many bytes of JSON text; more is cut and marked truncated. */
export const REJECTED_OUTPUT_CAP_BYTES = 64 * 1024;
/** At most this many violations are kept and returned (zod stops at 20; quality rules can list more). */
export const MAX_VIOLATIONS = 50;

/**
 * Text PostgreSQL can store: NUL and lone surrogates (which a refused output may quote in a
 * violation's path or message) become U+FFFD. The door refuses them in requests; the in-app
 * worker hands model output to the domain directly, so the domain guards its own writes.
 */
export function storable(s: string): string {
  return s.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** The violations as stored and as sent back to the Runtime: capped, storable text. */
export function keptViolations(violations: Violation[]): Violation[] {
  return violations.slice(0, MAX_VIOLATIONS).map((v) => ({ path: storable(v.path), rule: v.rule, message: storable(v.message) }));
}

/** The refused output as JSON text, cut on a character boundary at the cap. */
export function capOutput(output: unknown): { text: string; truncated: boolean; bytes: number } {
  const text = JSON.stringify(output) ?? "null";
  const bytes = Buffer.byteLength(text);
  if (bytes <= REJECTED_OUTPUT_CAP_BYTES) return { text, truncated: false, bytes };
  // Cutting the bytes can split a character; the decoder marks it U+FFFD, which we drop.
  const cut = Buffer.from(text).subarray(0, REJECTED_OUTPUT_CAP_BYTES).toString("utf8").replace(/\uFFFD+$/, "");
  return { text: cut, truncated: true, bytes };
}

/**
 * The CTE that keeps a refused output for the attempt the fail transition just ended, so the job's
 * failure and its evidence commit together (a repeated submission of the same attempt keeps the first).
 */
export function insertRejectionSql(output: unknown, violations: Violation[], at: Date) {
  const kept = keptViolations(violations);
  const { text, truncated, bytes } = capOutput(output);
  const rules = [...new Set(kept.map((v) => v.rule))];
  return Prisma.sql`rej AS (
      INSERT INTO "JobRejection" ("jobId", "attemptNo", output, truncated, "outputBytes", violations, rules, "createdAt")
      SELECT u.id, u."attemptNo", ${text}, ${truncated}, ${bytes}::int, ${JSON.stringify(kept)}::jsonb, ${rules}::text[], ${at}::timestamp(3)
      FROM upd u ON CONFLICT ("jobId", "attemptNo") DO NOTHING)`;
}
