"use client";

import { useTranslations } from "next-intl";

export type QuizParams = {
  count: number;
  difficulty: "easy" | "medium" | "hard" | "mixed";
  questionTypes: ("single_choice" | "true_false" | "short_answer")[];
};
export type AllParams = { quiz: QuizParams; flashcards: { count: number }; plan: { timeBudgetMinutes: number } };

export const DEFAULT_PARAMS: AllParams = {
  quiz: { count: 5, difficulty: "mixed", questionTypes: ["single_choice", "true_false"] },
  flashcards: { count: 8 },
  plan: { timeBudgetMinutes: 60 },
};

const QUESTION_TYPES = ["single_choice", "true_false", "short_answer"] as const;
const DIFFICULTIES = ["mixed", "easy", "medium", "hard"] as const;

const input =
  "w-20 rounded-md border border-slate-300 px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200";

function NumberField({
  id,
  label,
  value,
  min,
  max,
  onChange,
}: {
  id: string;
  label: string;
  value: number;
  min: number;
  max: number;
  onChange: (n: number) => void;
}) {
  return (
    <label htmlFor={id} className="flex items-center justify-between gap-2 text-sm">
      <span>{label}</span>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        className={input}
      />
    </label>
  );
}

export function QuizParamsFields({ value, onChange }: { value: QuizParams; onChange: (v: QuizParams) => void }) {
  const t = useTranslations("params");
  return (
    <div className="space-y-2">
      <NumberField
        id="quiz-count"
        label={t("questions")}
        value={value.count}
        min={1}
        max={20}
        onChange={(count) => onChange({ ...value, count })}
      />
      <label htmlFor="quiz-difficulty" className="flex items-center justify-between gap-2 text-sm">
        <span>{t("difficulty")}</span>
        <select
          id="quiz-difficulty"
          value={value.difficulty}
          onChange={(e) => onChange({ ...value, difficulty: e.target.value as QuizParams["difficulty"] })}
          className={`${input} w-28`}
        >
          {DIFFICULTIES.map((d) => (
            <option key={d} value={d}>
              {t(d)}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="text-sm">
        <legend className="mb-1">{t("questionTypes")}</legend>
        <div className="flex flex-wrap gap-x-3 gap-y-1">
          {QUESTION_TYPES.map((type) => (
            <label key={type} className="inline-flex items-center gap-1">
              <input
                type="checkbox"
                checked={value.questionTypes.includes(type)}
                onChange={(e) =>
                  onChange({
                    ...value,
                    questionTypes: e.target.checked
                      ? [...value.questionTypes, type]
                      : value.questionTypes.filter((t) => t !== type),
                  })
                }
                className="accent-indigo-600"
              />
              {t(type)}
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  );
}

export function FlashcardParamsFields({
  value,
  onChange,
}: {
  value: { count: number };
  onChange: (v: { count: number }) => void;
}) {
  const t = useTranslations("params");
  return (
    <NumberField
      id="flashcard-count"
      label={t("cards")}
      value={value.count}
      min={1}
      max={50}
      onChange={(count) => onChange({ count })}
    />
  );
}

export function PlanParamsFields({
  value,
  onChange,
}: {
  value: { timeBudgetMinutes: number };
  onChange: (v: { timeBudgetMinutes: number }) => void;
}) {
  const t = useTranslations("params");
  return (
    <NumberField
      id="plan-minutes"
      label={t("minutes")}
      value={value.timeBudgetMinutes}
      min={10}
      max={600}
      onChange={(timeBudgetMinutes) => onChange({ timeBudgetMinutes })}
    />
  );
}
