import type { JobTypeName, SnapshotContent } from "../jobs/schemas";
import type { Usage } from "../runtime-api/contract";
import type { Locale } from "../i18n/locales";

/** What a provider is asked to produce for one model call of the pipeline. */
export type InferenceRequest = {
  jobType: JobTypeName;
  snapshot: SnapshotContent;
  /** Parsed params of the job type (defaults applied). */
  params: Record<string, unknown>;
  /** When the snapshot was captured: the analysis's "now", so the same input gives the same output. */
  asOf: Date;
  /** The language of the output's text (keys and enum values stay English). */
  locale: Locale;
  prompt: { system: string; user: string };
  /** 1 for the first call, 2.. for calls after a failed quality check. */
  attempt: number;
  signal?: AbortSignal;
};

export type InferenceResult = {
  /** Raw model output: a parsed JSON value, or the text when it was not JSON (the quality check reports it). */
  output: unknown;
  /** Set when the answer was not a JSON object; the quality check reports it to the next prompt. */
  parseError?: string;
  provider: string;
  model: string;
  /** Tokens of this call (docs/contract.md#the-runtime-protocol shape); the pipeline adds the call's duration. */
  usage?: Usage;
};

export interface Provider {
  readonly name: string;
  infer(request: InferenceRequest): Promise<InferenceResult>;
}
