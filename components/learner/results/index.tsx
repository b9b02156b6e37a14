import type { ReactNode } from "react";
import { parseOutput as parse, type JobTypeName } from "@/server/job-types/catalogue";
import { DEFAULT_PARAMS, FlashcardParamsFields, PlanParamsFields, QuizParamsFields } from "../analysis-params";
import { FlashcardDeck } from "./flashcards";
import { KnowledgePointProposals } from "./knowledge-points";
import { LearningStateResult } from "./learning-state";
import { NextActionsResult } from "./next-actions";
import { QuizPlayer } from "./quiz-player";
import { WeakPointsResult } from "./weak-points";

type ParamsForm<P> = { defaults: P; Fields: (props: { value: P; onChange: (v: P) => void }) => ReactNode };
/** A type's options on its card: the form starts at `defaults` (a type without options has none). */
const paramsForm = <P,>(defaults: P, Fields: ParamsForm<P>["Fields"]) =>
  ({ defaults, Fields }) as unknown as ParamsForm<unknown>;

/** How the learner page shows one job type: its finished result, its icon, and the options it starts with. */
export type ResultRenderer = {
  params?: ParamsForm<unknown>;
  /** The output has passed the API's checks; View parses it with the type's schema again to get its type. */
  View: (props: { jobId: string; output: unknown }) => ReactNode;
  /** Plain SVG (no emoji fonts needed), decorative: the type's name is always next to it. */
  icon: { tone: string; paths: ReactNode };
};

/** One renderer per job type: `satisfies` makes a type without one a compile error, never a blank result. */
export const RESULT_RENDERERS = {
  learning_state_analysis: {
    View: ({ output }) => <LearningStateResult output={parse("learning_state_analysis", output)} />,
    icon: { tone: "bg-indigo-100 text-indigo-700", paths: <path d="M4 20V10M10 20V4M16 20v-7M22 20H2" /> },
  },
  weak_point_analysis: {
    View: ({ output }) => <WeakPointsResult output={parse("weak_point_analysis", output)} />,
    icon: {
      tone: "bg-rose-100 text-rose-700",
      paths: (
        <>
          <circle cx="12" cy="12" r="9" />
          <circle cx="12" cy="12" r="5" />
          <circle cx="12" cy="12" r="1" />
        </>
      ),
    },
  },
  next_action_planning: {
    params: paramsForm(DEFAULT_PARAMS.plan, PlanParamsFields),
    View: ({ jobId, output }) => <NextActionsResult jobId={jobId} output={parse("next_action_planning", output)} />,
    icon: {
      tone: "bg-amber-100 text-amber-700",
      paths: <path d="M9 6h11M9 12h11M9 18h11M4 6l1 1 2-2M4 12l1 1 2-2M4 18l1 1 2-2" />,
    },
  },
  quiz_generation: {
    params: paramsForm(DEFAULT_PARAMS.quiz, QuizParamsFields),
    View: ({ jobId, output }) => <QuizPlayer jobId={jobId} output={parse("quiz_generation", output)} />,
    icon: {
      tone: "bg-emerald-100 text-emerald-700",
      paths: (
        <>
          <path d="M9 9a3 3 0 1 1 4 2.8c-.6.3-1 .9-1 1.6V14" />
          <circle cx="12" cy="18" r=".5" />
          <rect x="3" y="3" width="18" height="18" rx="3" />
        </>
      ),
    },
  },
  flashcard_generation: {
    params: paramsForm(DEFAULT_PARAMS.flashcards, FlashcardParamsFields),
    View: ({ jobId, output }) => <FlashcardDeck jobId={jobId} output={parse("flashcard_generation", output)} />,
    icon: {
      tone: "bg-sky-100 text-sky-700",
      paths: (
        <>
          <rect x="3" y="7" width="14" height="12" rx="2" />
          <path d="M7 7V5a2 2 0 0 1 2-2h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-2" />
        </>
      ),
    },
  },
  knowledge_point_extraction: {
    // The proposals are read (with which ones the material has by now) and accepted through the server.
    View: ({ jobId }) => <KnowledgePointProposals jobId={jobId} />,
    icon: {
      tone: "bg-violet-100 text-violet-700",
      paths: (
        <>
          <path d="M4 4h11l5 5v11H4z" />
          <path d="M8 12h8M8 16h5" />
          <circle cx="18" cy="18" r="3" />
        </>
      ),
    },
  },
} satisfies Record<JobTypeName, ResultRenderer>;

/** The options form of a type, when it has one (looked up through the common shape). */
export const paramsFormOf = (type: JobTypeName): ParamsForm<unknown> | undefined =>
  (RESULT_RENDERERS[type] as ResultRenderer).params;

/** Every type's starting options, keyed by type: the learner page's options state. */
export const defaultParams = (): Partial<Record<JobTypeName, unknown>> =>
  Object.fromEntries(
    (Object.keys(RESULT_RENDERERS) as JobTypeName[]).flatMap((t) => {
      const form = paramsFormOf(t);
      return form ? [[t, form.defaults]] : [];
    }),
  );
