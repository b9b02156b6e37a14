"use client";

import { useTranslations } from "next-intl";

/** Every learner-facing sentence of this component, from the catalogues (messages/*.json, "firstRun"). */
function useText() {
  const t = useTranslations("firstRun");
  return {
    heading: t("heading"),
    steps: [
      { title: t("step1Title"), body: t("step1Body") },
      { title: t("step2Title"), body: t("step2Body") },
      { title: t("step3Title"), body: "" },
    ],
    runNeedsConsent: t("runNeedsConsent"),
    runReady: t("runReady"),
    done: t("done"),
    addFirst: t("addFirst"),
  };
}

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
  const TEXT = useText();
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
