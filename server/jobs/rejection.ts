import { Prisma } from "../generated/prisma/client";
import { REJECTION_LIMITS } from "./rejection-limits";
import type { Violation } from "./quality";

/** A refused output is kept up to this many bytes of JSON text; more is cut and marked truncated. */
export const REJECTED_OUTPUT_CAP_BYTES = REJECTION_LIMITS.outputBytes;
/** At most this many violations are kept and returned (zod stops at 20; quality rules can list more). */
export const MAX_VIOLATIONS = REJECTION_LIMITS.violations;

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
  // Clipped to the contract's lengths too: the in-app worker reports without passing the HTTP door.
  const clip = (s: string, n: number) => storable(String(s).slice(0, n));
  return violations.slice(0, MAX_VIOLATIONS).map((v) => ({
    path: clip(v.path, REJECTION_LIMITS.path),
    rule: clip(v.rule, REJECTION_LIMITS.rule),
    message: clip(v.message, REJECTION_LIMITS.message),
  }));
}

/** The refused output as JSON text, cut on a character boundary at the cap. */
export function capOutput(output: unknown): { text: string; truncated: boolean; bytes: number } {
  let text: string;
  try {
    text = JSON.stringify(output) ?? "null";
  } catch {
    // Nested beyond the stack (the in-app worker hands a model's output over without the door's depth limit).
    text = JSON.stringify("(output not kept: nested too deep to serialise)");
  }
  return capText(text);
}

function capText(text: string, knownBytes?: number): { text: string; truncated: boolean; bytes: number } {
  const bytes = Math.max(Buffer.byteLength(text), knownBytes ?? 0);
  if (Buffer.byteLength(text) <= REJECTED_OUTPUT_CAP_BYTES)
    return { text, truncated: bytes > Buffer.byteLength(text), bytes };
  // Cutting the bytes can split a character; the decoder marks it U+FFFD, which we drop.
  const cut = Buffer.from(text)
    .subarray(0, REJECTED_OUTPUT_CAP_BYTES)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
  return { text: cut, truncated: true, bytes };
}

/**
 * A rejected output as a Runtime reports it with fail: a JSON value, or (cut by the Runtime itself,
 * `truncated`) the start of its JSON text with the whole text's size.
 */
export type ReportedOutput = { value: unknown } | { cutText: string; bytes: number };

/**
 * The CTE that keeps a refused output for the attempt the fail transition just ended, so the job's
 * failure and its evidence commit together (a repeated submission of the same attempt keeps the first).
 */
export function insertRejectionSql(output: unknown, violations: Violation[], at: Date) {
  return rejectionSql({ value: output }, violations, at);
}

/**
 * The same CTE from a Runtime's fail report. Nothing is kept when the fail ended the attempt
 * cancelled (the learner asked to stop; after a consent revoke their data is not processed further).
 */
export function rejectionSql(output: ReportedOutput, violations: Violation[], at: Date) {
  const kept = keptViolations(violations);
  const { text, truncated, bytes } =
    "cutText" in output ? capText(storable(output.cutText), output.bytes) : capOutput(output.value);
  const rules = [...new Set(kept.map((v) => v.rule))];
  return Prisma.sql`rej AS (
      INSERT INTO "JobRejection" ("jobId", "attemptNo", output, truncated, "outputBytes", violations, rules, "createdAt")
      SELECT u.id, u."attemptNo", ${text}, ${truncated}, ${bytes}::int, ${JSON.stringify(kept)}::jsonb, ${rules}::text[], ${at}::timestamp(3)
      FROM upd u WHERE u.status <> 'cancelled' ON CONFLICT ("jobId", "attemptNo") DO NOTHING)`;
}

/** A rejection as a Runtime reports it with fail (the contract's failRequest fields). */
export type RejectionReport = {
  /** The last output the Runtime's own quality loop rejected. */
  rejectedOutput?: unknown;
  /** rejectedOutput is the start of the output's JSON text, cut by the Runtime; rejectedOutputBytes the whole size. */
  rejectedOutputTruncated?: boolean;
  rejectedOutputBytes?: number;
  violations?: Violation[];
};

/** The CTE keeping a Runtime-reported rejection at the attempt its fail ends; null when none was reported. */
export function reportedRejectionSql(r: RejectionReport, at: Date) {
  if (r.rejectedOutput === undefined) return null;
  const output: ReportedOutput =
    r.rejectedOutputTruncated && typeof r.rejectedOutput === "string"
      ? { cutText: r.rejectedOutput, bytes: r.rejectedOutputBytes ?? 0 }
      : { value: r.rejectedOutput };
  return rejectionSql(output, r.violations ?? [], at);
}
