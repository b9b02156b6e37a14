/** How the pipeline runs each of its stages: inline, or as a durable step (the in-app worker). A leaf, so tracing can wrap it without importing the pipeline. */
export type StageRunner = <T>(
  id: "prompt-builder" | "model-inference" | "quality-check" | "format-adapter",
  fn: () => Promise<T>,
) => Promise<T>;
