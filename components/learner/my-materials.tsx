"use client";

import { useTranslations } from "next-intl";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { MaterialForm, type MaterialDraft } from "./material-form";
import { SuggestPoints } from "./suggest-points";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/** Every learner-facing sentence of this component, from the catalogues (messages/*.json, "materials"). */
function useText() {
  const t = useTranslations("materials");
  return {
    heading: t("heading"),
    intro: t("intro"),
    add: t("add"),
    loading: t("loading"),
    loadError: (m: string) => t("loadError", { message: m }),
    edit: t("edit"),
    delete: t("delete"),
    confirmDelete: (n: number) => t("confirmDelete", { count: n }),
    yesDelete: t("yesDelete"),
    keep: t("keep"),
    points: t("points"),
    noPoints: t("noPoints"),
    addPoint: t("addPoint"),
    newPoint: t("newPoint"),
    rename: t("rename"),
    save: t("save"),
    cancel: t("cancel"),
    removePoint: (title: string) => t("removePoint", { title }),
    renamePoint: (title: string) => t("renamePoint", { title }),
    size: (kb: string) => t("size", { kb }),
  };
}

type Material = {
  id: string;
  title: string;
  preview: string;
  textBytes: number;
  knowledgePoints: { id: string; title: string }[];
};

/** Refetches everything that lists materials or knowledge points, so the target picker follows at once. */
function useRefreshMaterials() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      refreshAfterWrite(queryClient, trpc.materials.pathFilter()),
      refreshAfterWrite(queryClient, trpc.targets.list.pathFilter()),
    ]);
}

/** "My materials": add, edit and delete materials and their knowledge points; have knowledge points suggested. */
export function MyMaterials({ adding, onAddingChange }: { adding: boolean; onAddingChange: (v: boolean) => void }) {
  const TEXT = useText();
  const trpc = useTRPC();
  const refresh = useRefreshMaterials();
  const list = useQuery(trpc.materials.list.queryOptions());
  const create = useMutation(
    trpc.materials.create.mutationOptions({
      onSuccess: async () => {
        await refresh();
        onAddingChange(false);
      },
    }),
  );
  const save = (d: MaterialDraft) =>
    create.mutate({ title: d.title, text: d.text, knowledgePoints: d.knowledgePoints.map((title) => ({ title })) });

  return (
    <section aria-labelledby="materials-heading" className="mt-6" data-testid="my-materials">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="materials-heading" className="text-lg font-semibold">
            {TEXT.heading}
          </h2>
          <p className="text-sm text-slate-600">{TEXT.intro}</p>
        </div>
        {!adding && (
          <button
            type="button"
            onClick={() => onAddingChange(true)}
            className="rounded-lg bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700"
          >
            {TEXT.add}
          </button>
        )}
      </div>
      {adding && (
        <div className="mt-3">
          <MaterialForm
            withPoints
            busy={create.isPending}
            error={create.error?.message ?? null}
            onSave={(d) => !create.isPending && save(d)}
            onCancel={() => onAddingChange(false)}
          />
        </div>
      )}
      {list.isLoading && <p className="mt-3 text-sm text-slate-600">{TEXT.loading}</p>}
      {list.error && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {TEXT.loadError(list.error.message)}
        </p>
      )}
      <ul className="mt-3 space-y-3">
        {list.data?.items.map((m) => (
          <MaterialCard key={m.id} material={m} />
        ))}
      </ul>
    </section>
  );
}

function MaterialCard({ material }: { material: Material }) {
  const TEXT = useText();
  const trpc = useTRPC();
  const refresh = useRefreshMaterials();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const full = useQuery({ ...trpc.materials.get.queryOptions({ materialId: material.id }), enabled: editing });
  const update = useMutation(
    trpc.materials.update.mutationOptions({
      onSuccess: async () => {
        await refresh();
        setEditing(false);
      },
    }),
  );
  const remove = useMutation(trpc.materials.delete.mutationOptions({ onSuccess: () => refresh() }));

  if (editing && full.data)
    return (
      <li>
        <MaterialForm
          initial={full.data}
          withPoints={false}
          busy={update.isPending}
          error={update.error?.message ?? null}
          onSave={(d) => !update.isPending && update.mutate({ materialId: material.id, title: d.title, text: d.text })}
          onCancel={() => setEditing(false)}
        />
      </li>
    );

  return (
    <li className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200" data-testid="material">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="font-semibold">{material.title}</h3>
          <p className="truncate text-sm text-slate-600">{material.preview}</p>
          <p className="text-xs text-slate-600">{TEXT.size((material.textBytes / 1024).toFixed(1))}</p>
        </div>
        <div className="flex gap-2 text-sm">
          <button type="button" onClick={() => setEditing(true)} className="rounded px-2 py-1 ring-1 ring-slate-300">
            {TEXT.edit}
            <span className="sr-only"> {material.title}</span>
          </button>
          <button
            type="button"
            onClick={() => setConfirming(true)}
            className="rounded px-2 py-1 text-rose-700 ring-1 ring-rose-200"
          >
            {TEXT.delete}
            <span className="sr-only"> {material.title}</span>
          </button>
        </div>
      </div>
      {confirming && (
        <div
          role="alertdialog"
          aria-label={TEXT.delete}
          className="mt-3 rounded-lg bg-rose-50 p-3 text-sm text-rose-900"
        >
          <p>{TEXT.confirmDelete(material.knowledgePoints.length)}</p>
          <div className="mt-2 flex gap-2">
            <button
              type="button"
              onClick={() => remove.mutate({ materialId: material.id })}
              className="rounded bg-rose-700 px-3 py-1 font-medium text-white"
            >
              {TEXT.yesDelete}
            </button>
            <button
              type="button"
              onClick={() => setConfirming(false)}
              className="rounded px-3 py-1 ring-1 ring-rose-300"
            >
              {TEXT.keep}
            </button>
          </div>
          {remove.error && <p role="alert">{remove.error.message}</p>}
        </div>
      )}
      <KnowledgePoints materialId={material.id} points={material.knowledgePoints} />
      <SuggestPoints materialId={material.id} materialTitle={material.title} />
    </li>
  );
}

function KnowledgePoints({ materialId, points }: { materialId: string; points: Material["knowledgePoints"] }) {
  const TEXT = useText();
  const trpc = useTRPC();
  const refresh = useRefreshMaterials();
  const [title, setTitle] = useState("");
  const add = useMutation(
    trpc.materials.addKnowledgePoint.mutationOptions({
      onSuccess: async () => {
        setTitle("");
        await refresh();
      },
    }),
  );
  return (
    <div className="mt-3">
      <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-600">{TEXT.points}</h4>
      {points.length === 0 && <p className="text-sm text-slate-600">{TEXT.noPoints}</p>}
      <ul className="mt-1 flex flex-wrap gap-2">
        {points.map((p) => (
          <PointChip key={p.id} point={p} />
        ))}
      </ul>
      <form
        className="mt-2 flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (title.trim() && !add.isPending) add.mutate({ materialId, title });
        }}
      >
        <label className="sr-only" htmlFor={`kp-${materialId}`}>
          {TEXT.newPoint}
        </label>
        <input
          id={`kp-${materialId}`}
          value={title}
          maxLength={200}
          placeholder={TEXT.newPoint}
          onChange={(e) => setTitle(e.target.value)}
          className="min-w-0 flex-1 rounded-lg border border-slate-300 px-2 py-1 text-sm"
        />
        <button type="submit" className="rounded-lg px-3 py-1 text-sm ring-1 ring-slate-300">
          {TEXT.addPoint}
        </button>
      </form>
      {add.error && (
        <p role="alert" className="text-sm text-rose-700">
          {add.error.message}
        </p>
      )}
    </div>
  );
}

function PointChip({ point }: { point: { id: string; title: string } }) {
  const TEXT = useText();
  const trpc = useTRPC();
  const refresh = useRefreshMaterials();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(point.title);
  const rename = useMutation(
    trpc.materials.renameKnowledgePoint.mutationOptions({
      onSuccess: async () => {
        setEditing(false);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.materials.deleteKnowledgePoint.mutationOptions({ onSuccess: () => refresh() }));
  if (editing)
    return (
      <li>
        <form
          className="flex gap-1"
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate({ knowledgePointId: point.id, title });
          }}
        >
          <input
            aria-label={TEXT.renamePoint(point.title)}
            value={title}
            maxLength={200}
            onChange={(e) => setTitle(e.target.value)}
            className="rounded border border-slate-300 px-2 py-0.5 text-sm"
          />
          <button type="submit" className="rounded px-2 text-sm ring-1 ring-slate-300">
            {TEXT.save}
          </button>
          <button type="button" onClick={() => setEditing(false)} className="rounded px-2 text-sm">
            {TEXT.cancel}
          </button>
        </form>
        {rename.error && (
          <p role="alert" className="text-xs text-rose-700">
            {rename.error.message}
          </p>
        )}
      </li>
    );
  return (
    <li className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-0.5 pr-1 pl-3 text-sm text-indigo-900 ring-1 ring-indigo-200">
      <span data-testid="knowledge-point">{point.title}</span>
      <button
        type="button"
        onClick={() => setEditing(true)}
        aria-label={TEXT.renamePoint(point.title)}
        className="rounded-full px-1 text-xs"
      >
        ✎
      </button>
      <button
        type="button"
        onClick={() => remove.mutate({ knowledgePointId: point.id })}
        aria-label={TEXT.removePoint(point.title)}
        className="rounded-full px-1 text-xs"
      >
        ✕
      </button>
    </li>
  );
}
