/** The pipeline's stages with their progress ranges (docs/contract.md#progress-and-push, seed async-task-pipeline mapped to analyses). */
export const STAGES = {
  prompt_builder: { from: 0, to: 20 },
  model_inference: { from: 20, to: 60 },
  quality_check: { from: 60, to: 80 },
  format_adapter: { from: 80, to: 100 },
} as const;

export type Stage = keyof typeof STAGES;
export type ProgressReport = { stage: Stage; progress: number; message?: string };
export type ProgressFn = (report: ProgressReport) => void | Promise<void>;
