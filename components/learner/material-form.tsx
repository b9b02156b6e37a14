"use client";

import { useTranslations } from "next-intl";

import { useId, useState } from "react";

/** Every learner-facing sentence of this component, from the catalogues (messages/*.json, "materialForm"). */
function useText() {
  const t = useTranslations("materialForm");
  return {
    title: t("title"),
    text: t("text"),
    textHint: t("textHint"),
    file: t("file"),
    reading: t("reading"),
    tooBig: (kb: number) => t("tooBig", { kb }),
    wrongType: t("wrongType"),
    points: t("points"),
    pointsHint: t("pointsHint"),
    save: t("save"),
    saving: t("saving"),
    cancel: t("cancel"),
    size: (kb: string) => t("size", { kb }),
  };
}

const MAX_BYTES = 200 * 1024;
const bytesOf = (s: string) => new TextEncoder().encode(s).length;

export type MaterialDraft = { title: string; text: string; knowledgePoints: string[] };

/**
 * The add/edit form of a material. A file is read by the server (POST /api/materials/file checks
 * its type, size and encoding) and lands in the text box, so the learner sees what will be saved.
 */
export function MaterialForm({
  initial,
  withPoints,
  busy,
  error,
  onSave,
  onCancel,
}: {
  initial?: { title: string; text: string };
  withPoints: boolean;
  busy: boolean;
  error: string | null;
  onSave: (draft: MaterialDraft) => void;
  onCancel: () => void;
}) {
  const TEXT = useText();
  const id = useId();
  const [title, setTitle] = useState(initial?.title ?? "");
  const [text, setText] = useState(initial?.text ?? "");
  const [points, setPoints] = useState("");
  const [fileNote, setFileNote] = useState<string | null>(null);
  const bytes = bytesOf(text);

  async function load(file: File) {
    if (!/\.(txt|md|markdown)$/i.test(file.name)) return setFileNote(TEXT.wrongType);
    if (file.size > MAX_BYTES) return setFileNote(TEXT.tooBig(Math.ceil(file.size / 1024)));
    setFileNote(TEXT.reading);
    const form = new FormData();
    form.append("file", file);
    const res = await fetch("/api/materials/file", { method: "POST", body: form });
    const body = await res.json().catch(() => null);
    if (!res.ok) return setFileNote(body?.error?.message ?? `upload failed (${res.status})`);
    setText(body.text);
    if (!title.trim()) setTitle(body.title);
    setFileNote(null);
  }

  return (
    <form
      className="space-y-3 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200"
      onSubmit={(e) => {
        e.preventDefault();
        onSave({
          title,
          text,
          knowledgePoints: points
            .split("\n")
            .map((p) => p.trim())
            .filter(Boolean),
        });
      }}
    >
      <label htmlFor={`${id}-title`} className="block text-sm font-medium text-slate-700">
        {TEXT.title}
      </label>
      <input
        id={`${id}-title`}
        value={title}
        onChange={(e) => setTitle(e.target.value)}
        required
        maxLength={200}
        className="mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 text-base"
      />
      <div>
        <label htmlFor={`${id}-text`} className="block text-sm font-medium text-slate-700">
          {TEXT.text}
        </label>
        <textarea
          id={`${id}-text`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          required
          rows={8}
          aria-describedby={`${id}-text-hint`}
          className="mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm"
        />
        <p id={`${id}-text-hint`} className="mt-1 flex flex-wrap justify-between gap-2 text-xs text-slate-600">
          <span>{TEXT.textHint}</span>
          <span className={bytes > MAX_BYTES ? "font-semibold text-rose-700" : ""}>
            {TEXT.size((bytes / 1024).toFixed(1))}
          </span>
        </p>
        <label className="mt-2 inline-block text-sm text-slate-700">
          {TEXT.file}
          <input
            type="file"
            accept=".txt,.md,.markdown,text/plain,text/markdown"
            className="ml-2 text-sm"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void load(f);
              e.target.value = "";
            }}
          />
        </label>
        {fileNote && (
          <p role="status" className="mt-1 text-sm text-slate-700">
            {fileNote}
          </p>
        )}
      </div>
      {withPoints && (
        <div>
          <label htmlFor={`${id}-points`} className="block text-sm font-medium text-slate-700">
            {TEXT.points}
          </label>
          <textarea
            id={`${id}-points`}
            value={points}
            onChange={(e) => setPoints(e.target.value)}
            rows={3}
            aria-describedby={`${id}-points-hint`}
            className="mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 text-base"
          />
          <span id={`${id}-points-hint`} className="mt-1 block text-xs font-normal text-slate-600">
            {TEXT.pointsHint}
          </span>
        </div>
      )}
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="submit"
          aria-disabled={busy || undefined}
          className="rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-700"
        >
          {busy ? TEXT.saving : TEXT.save}
        </button>
        <button
          type="button"
          onClick={onCancel}
          className="rounded-lg px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-300"
        >
          {TEXT.cancel}
        </button>
      </div>
    </form>
  );
}
