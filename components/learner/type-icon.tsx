import type { JobType } from "./labels";
import { RESULT_RENDERERS } from "./results";

/** The type's icon from its renderer (components/learner/results/index.tsx). */
export function TypeIcon({ type, size = "h-7 w-7" }: { type: JobType; size?: string }) {
  const { tone, paths } = RESULT_RENDERERS[type].icon;
  return (
    <span aria-hidden="true" className={`inline-flex shrink-0 items-center justify-center rounded-lg ${size} ${tone}`}>
      <svg
        viewBox="0 0 24 24"
        className="h-4 w-4"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {paths}
      </svg>
    </span>
  );
}
