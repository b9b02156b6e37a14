import { jobTypeOf, OUTPUT_SCHEMA_VERSION, type JobTypeName } from "../job-types";
import { evidenceFindings, findingText } from "../job-types/evidence";
import type { SnapshotContent } from "../job-types/fields";
import { DEFAULT_LOCALE, type Locale } from "../i18n/locales";

export type Review = { ok: true } | { ok: false; findings: string[] };
/** A quality rule the pipeline applies on top of the API's (which checkOutput enforces). */
export type Reviewer = (input: {
  jobType: JobTypeName;
  output: unknown;
  snapshot: SnapshotContent;
  params: Record<string, unknown>;
  /** The job's language (left out: English). */
  locale?: Locale;
  attempt: number;
}) => Review | Promise<Review>;

/**
 * The pipeline's own quality bar, stricter than the API's acceptance rules: each type's `review`
 * in server/job-types, and the evidence rules (server/job-types/evidence), which hold what the
 * output says against the snapshot. An output that misses only these is still acceptable to the API: after the
 * last quality loop it is submitted marked degraded instead of failing the job.
 */
export const reviewOutput: Reviewer = ({ jobType, output, snapshot, params, locale = DEFAULT_LOCALE }) => {
  const type = jobTypeOf(jobType);
  const parsed = type.output.schema.parse(output);
  const findings = [
    ...type.review(parsed, { snapshot, params, locale }),
    // What the output says against what the snapshot says (server/job-types/evidence).
    ...evidenceFindings(jobType, parsed, { snapshot, params, locale, version: OUTPUT_SCHEMA_VERSION }).map(findingText),
  ];
  return findings.length ? { ok: false, findings } : { ok: true };
};
