import { checkOutput } from "../jobs/quality";
import {
  jobTypeSchema,
  paramsSchemas,
  snapshotContentSchema,
  type JobTypeName,
  type SnapshotContent,
} from "../jobs/schemas";
import type { Provider } from "../providers/types";
import type { Usage } from "../runtime-api/contract";
import { DEFAULT_LOCALE, isLocale, type Locale } from "../i18n/locales";
import { addUsage, isJobFailure, JobFailure, type Rejected } from "./errors";
import { buildPrompt, PROMPT_VERSION } from "./prompts";
import { runQualityChecks, type QualityChecker } from "./quality-checks";
import { STAGES, type ProgressFn, type Stage } from "./stages";
import { tracedProvider, tracedStages } from "../observability/pipeline-spans";
import type { StageRunner } from "./stage-runner";

export type PipelineInput = {
  jobType: string;
  outputSchemaVersion?: string;
  params: unknown;
  snapshot: unknown;
  /** The analysis's "now" (the snapshot's capture time), so results do not depend on when a job runs. */
  asOf: Date;
  /** The language of the output's text (the job's `locale`); English when left out. */
  locale?: Locale;
};

/** The pipeline's input from a leased job (lock or claim answer), for every executor. */
export function pipelineInput(job: {
  jobType: string;
  outputSchemaVersion?: string | null;
  params: unknown;
  snapshot: { content: unknown; capturedAt: string | Date } | null;
  createdAt: string | Date;
  /** From an older API: missing. A tag this Runtime does not know: English. */
  locale?: string | null;
}): PipelineInput {
  return {
    jobType: job.jobType,
    outputSchemaVersion: job.outputSchemaVersion ?? undefined,
    params: job.params,
    snapshot: job.snapshot?.content ?? null,
    asOf: new Date(job.snapshot?.capturedAt ?? job.createdAt),
    locale: isLocale(job.locale) ? job.locale : DEFAULT_LOCALE,
  };
}

export type PipelineOptions = {
  provider: Provider;
  onProgress?: ProgressFn;
  signal?: AbortSignal;
  /** How many times a failed quality check goes back to prompt_builder (seed: 3). */
  maxQualityLoops?: number;
  /** The pipeline's quality checks on top of the API's rules; defaults to runQualityChecks. */
  qualityChecker?: QualityChecker;
  /**
   * Runs one stage. The reference Runtime runs them inline; the Inngest worker passes
   * `(id, fn) => step.run(id, fn)`, so each stage is a durable, memoised step. A stage's result
   * must therefore be plain JSON.
   */
  runStage?: StageRunner;
};

export type { StageRunner };
const inline: StageRunner = (_id, fn) => fn();

export type PipelineResult = {
  output: Record<string, unknown>;
  outputSchemaVersion: string;
  /** True when no attempt met the pipeline's own bar and the best one meeting the API's rules is submitted. */
  degraded: boolean;
  /** Times the quality check sent the job back to prompt_builder. */
  qualityLoops: number;
  /** What the quality check still objected to, for a degraded output. */
  findings: string[];
  promptVersion: string;
  provider: string;
  model: string;
  /** Every model call of the attempt summed (docs/contract.md#the-runtime-protocol shape). Thrown errors carry it too (usageOf). */
  usage: Usage;
  latencyMs: number;
};

/**
 * prompt_builder → model_inference → quality_check → format_adapter, reporting stage and
 * progress as it goes. A failed quality check goes back to prompt_builder with the findings in
 * the prompt, at most `maxQualityLoops` times. Then the best attempt that the API accepts (v1
 * schema + quality rules) is submitted marked degraded; if no attempt gets that far the output
 * is invalid and the job fails INVALID_SCHEMA (the API would reject it anyway).
 */
export async function runPipeline(input: PipelineInput, opts: PipelineOptions): Promise<PipelineResult> {
  const usage: { total: Usage } = { total: { provider: opts.provider.name } };
  try {
    return await run(input, opts, usage);
  } catch (e) {
    // Whatever stopped the attempt (a failure, a cancel, a bug), the calls it made were paid for.
    if (e && typeof e === "object") (e as { usage?: Usage }).usage = usage.total;
    throw e;
  }
}

async function run(input: PipelineInput, opts: PipelineOptions, usage: { total: Usage }): Promise<PipelineResult> {
  const started = Date.now();
  const { jobType, snapshot, params } = parseInput(input);
  const version = input.outputSchemaVersion ?? "v1";
  const locale = input.locale ?? DEFAULT_LOCALE;
  const maxLoops = opts.maxQualityLoops ?? 3;
  const qualityChecker = opts.qualityChecker ?? runQualityChecks;
  const ctx = { knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)), params, snapshot };
  const report = async (stage: Stage, progress: number, message?: string) => {
    opts.signal?.throwIfAborted();
    await opts.onProgress?.({ stage, progress, message });
    opts.signal?.throwIfAborted();
  };

  let findings: string[] = [];
  let best: { output: Record<string, unknown>; findings: string[] } | null = null;
  let accepted: Record<string, unknown> | null = null;
  let model = { provider: opts.provider.name, model: "" };
  // The latest output that broke a hard rule, sent with an INVALID_SCHEMA failure for the console.
  let rejected: Rejected | undefined;
  let loops = 0;

  const loop = { n: 1 };
  const stage = tracedStages(opts.runStage ?? inline, loop);
  const provider = tracedProvider(opts.provider);
  for (let attempt = 1; attempt <= maxLoops + 1; attempt++) {
    loop.n = attempt;
    const retryNote = attempt > 1 ? `quality retry ${attempt - 1} of ${maxLoops}` : undefined;
    const prompt = await stage("prompt-builder", async () => {
      await report("prompt_builder", STAGES.prompt_builder.from, retryNote ?? "building the prompt");
      return buildPrompt({ jobType, snapshot, params, asOf: input.asOf, locale, findings });
    });

    let inferred;
    try {
      inferred = await stage("model-inference", async () => {
        await report("model_inference", STAGES.model_inference.from, retryNote ?? `calling ${opts.provider.name}`);
        const callStarted = Date.now();
        try {
          const r = await provider.infer({
            jobType,
            snapshot,
            params,
            asOf: input.asOf,
            locale,
            prompt,
            attempt,
            signal: opts.signal,
          });
          // The call's usage is part of the step's result, so a replayed step still counts it.
          return {
            ...r,
            usage: {
              provider: r.provider,
              model: r.model,
              promptTokens: 0,
              completionTokens: 0,
              ...r.usage,
              durationMs: Date.now() - callStarted,
            },
          };
        } catch (e) {
          if (isJobFailure(e))
            e.usage = { provider: opts.provider.name, ...e.usage, durationMs: Date.now() - callStarted };
          throw e;
        }
      });
    } catch (e) {
      if (isJobFailure(e)) usage.total = addUsage(usage.total, e.usage);
      throw e;
    }
    model = { provider: inferred.provider, model: inferred.model };
    usage.total = addUsage(usage.total, inferred.usage);

    type Checked = {
      output: Record<string, unknown> | null;
      findings: string[];
      accepted: boolean;
      violations?: Rejected["violations"];
    };
    const checked = await stage("quality-check", async (): Promise<Checked> => {
      await report("quality_check", STAGES.quality_check.from, "checking the output");
      const hard = inferred.parseError
        ? {
            ok: false as const,
            findings: [inferred.parseError],
            violations: [{ path: "", rule: "not_json", message: inferred.parseError }],
          }
        : checkOutput(jobType, version, inferred.output, ctx);
      if (!hard.ok) return { output: null, findings: hard.findings, accepted: false, violations: hard.violations };
      const output = hard.output as Record<string, unknown>;
      const verdict = await qualityChecker({ jobType, output, snapshot, params, locale, attempt });
      return { output, findings: verdict.ok ? [] : verdict.findings, accepted: verdict.ok };
    });
    if (checked.accepted) {
      accepted = checked.output;
      break;
    }
    findings = checked.findings;
    // The output itself comes from the (memoised) inference step, not copied into this step's result.
    if (checked.violations) rejected = { output: inferred.output ?? null, violations: checked.violations };
    // The latest attempt that the API accepts with the fewest objections is the fallback.
    if (checked.output && (!best || checked.findings.length <= best.findings.length))
      best = { output: checked.output, findings: checked.findings };
    if (attempt <= maxLoops) loops++;
  }

  if (!accepted && !best) {
    const failure = new JobFailure(
      "INVALID_SCHEMA",
      `output still invalid after ${loops} quality loops: ${findings.slice(0, 10).join("; ")}`,
    );
    failure.rejected = rejected;
    throw failure;
  }
  await stage("format-adapter", () =>
    report(
      "format_adapter",
      STAGES.format_adapter.from,
      accepted ? "formatting the result" : "formatting a degraded result",
    ),
  );
  return {
    output: accepted ?? best!.output,
    outputSchemaVersion: version,
    degraded: !accepted,
    qualityLoops: loops,
    findings: accepted ? [] : best!.findings,
    promptVersion: PROMPT_VERSION,
    provider: model.provider,
    model: model.model,
    usage: usage.total,
    latencyMs: Date.now() - started,
  };
}

function parseInput(input: PipelineInput): {
  jobType: JobTypeName;
  snapshot: SnapshotContent;
  params: Record<string, unknown>;
} {
  const jobType = jobTypeSchema.safeParse(input.jobType);
  if (!jobType.success) throw new JobFailure("INVALID_SNAPSHOT", `unknown job type ${String(input.jobType)}`);
  const snapshot = snapshotContentSchema.safeParse(input.snapshot);
  if (!snapshot.success) {
    const issues = snapshot.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "snapshot"}: ${i.message}`);
    throw new JobFailure("INVALID_SNAPSHOT", `the job's snapshot is missing or malformed: ${issues.join("; ")}`);
  }
  const params = paramsSchemas[jobType.data].safeParse(input.params ?? {});
  if (!params.success)
    throw new JobFailure("INVALID_SNAPSHOT", `the job's params are invalid: ${params.error.message}`);
  return { jobType: jobType.data, snapshot: snapshot.data, params: params.data as Record<string, unknown> };
}
