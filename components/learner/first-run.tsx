"use client";

/** Every learner-facing sentence of this component, in one place (for the translation catalogues). */
const TEXT = {
  heading: "Welcome! Three steps to your first analysis",
  steps: [
    {
      title: "Add a material",
      body: "Your notes, a chapter or an article: type it, paste it, or load a .txt or .md file.",
    },
    {
      title: "Name its knowledge points",
      body: "The topics in it you want to master. Analyses, quizzes and flashcards are organised by them.",
    },
    { title: "Run the analyses", body: "" },
  ],
  runNeedsConsent: "Turn on AI in “AI settings”, then press “Run all five”. Results appear here within a minute.",
  runReady: "Press “Run all five” under Analyses. Results appear here within a minute.",
  done: "Done",
  addFirst: "Add your first material",
};

/** What a brand-new learner sees instead of empty panels: what to do first, ticked as they go. */
export function FirstRun({
  hasMaterial,
  hasPoints,
  consent,
  onAdd,
}: {
  hasMaterial: boolean;
  hasPoints: boolean;
  consent: boolean;
  onAdd: () => void;
}) {
  const done = [hasMaterial, hasPoints, false];
  return (
    <section
      aria-labelledby="first-run-heading"
      className="mt-6 rounded-xl bg-white p-5 shadow-sm ring-1 ring-indigo-200"
      data-testid="first-run"
    >
      <h2 id="first-run-heading" className="text-lg font-semibold">
        {TEXT.heading}
      </h2>
      <ol className="mt-3 space-y-3">
        {TEXT.steps.map((step, i) => (
          <li key={step.title} className="flex gap-3">
            <span
              aria-hidden="true"
              className={`flex h-7 w-7 shrink-0 items-center justify-center rounded-full text-sm font-semibold ${done[i] ? "bg-emerald-600 text-white" : "bg-indigo-100 text-indigo-800"}`}
            >
              {done[i] ? "✓" : i + 1}
            </span>
            <div>
              <p className="font-medium">
                {step.title}
                {done[i] && <span className="ml-2 text-sm font-normal text-emerald-700">{TEXT.done}</span>}
              </p>
              <p className="text-sm text-slate-600">
                {i < 2 ? step.body : consent ? TEXT.runReady : TEXT.runNeedsConsent}
              </p>
            </div>
          </li>
        ))}
      </ol>
      {!hasMaterial && (
        <button
          type="button"
          onClick={onAdd}
          className="mt-4 rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-700"
        >
          {TEXT.addFirst}
        </button>
      )}
    </section>
  );
}
