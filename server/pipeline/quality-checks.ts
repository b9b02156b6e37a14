import { jobTypeOf, type JobTypeName } from "../job-types";
import type { SnapshotContent } from "../job-types/fields";
import { DEFAULT_LOCALE, type Locale } from "../i18n/locales";

export type QualityVerdict = { ok: true } | { ok: false; findings: string[] };
/** The pipeline's quality checks, applied on top of the API's rules (which checkOutput enforces). */
export type QualityChecker = (input: {
  jobType: JobTypeName;
  output: unknown;
  snapshot: SnapshotContent;
  params: Record<string, unknown>;
  /** The job's language (left out: English). */
  locale?: Locale;
  attempt: number;
}) => QualityVerdict | Promise<QualityVerdict>;

/**
 * The pipeline's quality checks, a bar stricter than the API's acceptance rules (each type's
 * `qualityChecks` in server/job-types). An output that misses only these is still acceptable to
 * the API: after the last quality loop it is submitted marked degraded instead of failing the job.
 */
export const runQualityChecks: QualityChecker = ({ jobType, output, snapshot, params, locale = DEFAULT_LOCALE }) => {
  const type = jobTypeOf(jobType);
  const findings = type.qualityChecks(type.output.schema.parse(output), { snapshot, params, locale });
  return findings.length ? { ok: false, findings } : { ok: true };
};
