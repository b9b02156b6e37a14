import type { JobParams, JobTypeName, SnapshotContent } from "../../jobs/schemas";
import type { InferenceRequest, InferenceResult, Provider } from "../types";
import { generateFlashcards } from "./flashcards";
import { analyseLearningState } from "./learning-state";
import { planNextActions } from "./next-actions";
import { generateQuiz } from "./quiz";
import { analyseWeakPoints } from "./weak-points";

export const LOCAL_MODEL = "local-analyzer-1";

/** The deterministic analysis of one job: a pure function of snapshot, params and the snapshot's time. */
export function analyse(jobType: JobTypeName, snapshot: SnapshotContent, params: Record<string, unknown>, asOf: Date) {
  switch (jobType) {
    case "learning_state_analysis":
      return analyseLearningState(snapshot, asOf);
    case "weak_point_analysis":
      return analyseWeakPoints(snapshot);
    case "next_action_planning":
      return planNextActions(snapshot, params as JobParams<"next_action_planning">, asOf);
    case "quiz_generation":
      return generateQuiz(snapshot, params as JobParams<"quiz_generation">);
    case "flashcard_generation":
      return generateFlashcards(snapshot, params as JobParams<"flashcard_generation">);
  }
}

/**
 * The `local` provider: no network, no key; it ignores the prompt and computes the answer.
 * `delayMs` stands in for a model's latency (demo progress bars, tests that act mid-job).
 */
export function localProvider(opts: { delayMs?: number } = {}): Provider {
  return {
    name: "local",
    async infer(req: InferenceRequest): Promise<InferenceResult> {
      if (opts.delayMs) await sleep(opts.delayMs, req.signal);
      req.signal?.throwIfAborted();
      return {
        output: analyse(req.jobType, req.snapshot, req.params, req.asOf),
        provider: "local",
        model: LOCAL_MODEL,
      };
    },
  };
}

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
