import type { JobType } from "./labels";

const TONE: Record<JobType, string> = {
  learning_state_analysis: "bg-indigo-100 text-indigo-700",
  weak_point_analysis: "bg-rose-100 text-rose-700",
  next_action_planning: "bg-amber-100 text-amber-700",
  quiz_generation: "bg-emerald-100 text-emerald-700",
  flashcard_generation: "bg-sky-100 text-sky-700",
};

/** Plain SVG (no emoji fonts needed), decorative: the type's name is always next to it. */
const PATHS: Record<JobType, React.ReactNode> = {
  learning_state_analysis: <path d="M4 20V10M10 20V4M16 20v-7M22 20H2" />,
  weak_point_analysis: (
    <>
      <circle cx="12" cy="12" r="9" />
      <circle cx="12" cy="12" r="5" />
      <circle cx="12" cy="12" r="1" />
    </>
  ),
  next_action_planning: <path d="M9 6h11M9 12h11M9 18h11M4 6l1 1 2-2M4 12l1 1 2-2M4 18l1 1 2-2" />,
  quiz_generation: (
    <>
      <path d="M9 9a3 3 0 1 1 4 2.8c-.6.3-1 .9-1 1.6V14" />
      <circle cx="12" cy="18" r=".5" />
      <rect x="3" y="3" width="18" height="18" rx="3" />
    </>
  ),
  flashcard_generation: (
    <>
      <rect x="3" y="7" width="14" height="12" rx="2" />
      <path d="M7 7V5a2 2 0 0 1 2-2h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-2" />
    </>
  ),
};

export function TypeIcon({ type, size = "h-7 w-7" }: { type: JobType; size?: string }) {
  return (
    <span
      aria-hidden="true"
      className={`inline-flex shrink-0 items-center justify-center rounded-lg ${size} ${TONE[type]}`}
    >
      <svg
        viewBox="0 0 24 24"
        className="h-4 w-4"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {PATHS[type]}
      </svg>
    </span>
  );
}
