"use client";

import { useTranslations } from "next-intl";
import type { Target, Targets } from "./labels";

/** A native select: keyboard, screen readers and phones all handle it well. */
export function TargetPicker({
  targets,
  value,
  onChange,
}: {
  targets: Targets;
  value: Target;
  onChange: (t: Target) => void;
}) {
  const t = useTranslations("targets");
  const encoded = `${value.type}:${value.id}`;
  return (
    <div>
      <label htmlFor="target" className="block text-sm font-medium text-slate-700">
        {t("label")}
      </label>
      <select
        id="target"
        value={encoded}
        onChange={(e) => {
          const [type, ...rest] = e.target.value.split(":");
          onChange({ type: type as Target["type"], id: rest.join(":") });
        }}
        className="mt-1 w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-base shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200"
      >
        <option value={`user:${targets.learner.id}`}>{t("everything")}</option>
        {targets.materials.map((m) => (
          <optgroup key={m.id} label={m.title}>
            <option value={`material:${m.id}`}>{t("wholeMaterial", { title: m.title })}</option>
            {m.knowledgePoints.map((k) => (
              <option key={k.id} value={`knowledge_point:${k.id}`}>
                {k.title}
              </option>
            ))}
          </optgroup>
        ))}
        {targets.looseKnowledgePoints.length > 0 && (
          <optgroup label={t("otherTopics")}>
            {targets.looseKnowledgePoints.map((k) => (
              <option key={k.id} value={`knowledge_point:${k.id}`}>
                {k.title}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      {targets.materials.length === 0 && targets.looseKnowledgePoints.length === 0 && (
        <p className="mt-2 text-sm text-slate-600">{t("noMaterials")}</p>
      )}
    </div>
  );
}
