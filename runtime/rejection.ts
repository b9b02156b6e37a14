import type { Rejected } from "../server/pipeline/errors";
import { failRequest, REJECTION_LIMITS, violationSchema } from "../server/runtime-api/contract";

/** The rejection fields of a fail request (docs/contract.md#the-runtime-protocol fail, `rejectedOutput` and `violations`). */
export type RejectionFields = {
  rejectedOutput?: unknown;
  rejectedOutputTruncated?: boolean;
  rejectedOutputBytes?: number;
  violations?: { path: string; rule: string; message: string }[];
};

/**
 * What the quality loop last rejected, as the API will accept it, so the console can show which
 * field broke which rule and what the model sent. A report must never cost the failure itself:
 * an output the contract would refuse as a value (over the API's 64 KB cap, nested too deep, or
 * holding a NUL the model escaped into its JSON) goes as the start of its JSON text, which
 * JSON.stringify keeps storable; violations the contract refuses are clipped or dropped; and if
 * the whole fail body would still be refused, the rejection is left out.
 */
export function rejectionFields(
  rejected: Rejected | undefined,
  base: Record<string, unknown>,
  maxBodyBytes: number,
): RejectionFields {
  if (!rejected) return {};
  const violations = rejected.violations
    .slice(0, REJECTION_LIMITS.violations)
    .map((v) => ({
      path: v.path.slice(0, REJECTION_LIMITS.path),
      rule: v.rule,
      message: v.message.slice(0, REJECTION_LIMITS.message),
    }))
    .filter((v) => violationSchema.safeParse(v).success);
  const text = JSON.stringify(rejected.output) ?? "null";
  const bytes = Buffer.byteLength(text);
  const asValue: RejectionFields = { rejectedOutput: rejected.output ?? null, violations };
  const asText: RejectionFields = {
    rejectedOutput: cut(text),
    rejectedOutputTruncated: true,
    rejectedOutputBytes: bytes,
    violations,
  };
  for (const fields of bytes <= REJECTION_LIMITS.outputBytes ? [asValue, asText] : [asText]) {
    const body = { ...base, ...fields };
    if (Buffer.byteLength(JSON.stringify(body)) <= maxBodyBytes && failRequest.safeParse(body).success) return fields;
  }
  return {};
}

/** The first 64 KB of the text, cut on a character boundary (a split character decodes to U+FFFD, dropped). */
function cut(text: string): string {
  if (Buffer.byteLength(text) <= REJECTION_LIMITS.outputBytes) return text;
  return Buffer.from(text)
    .subarray(0, REJECTION_LIMITS.outputBytes)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
}
