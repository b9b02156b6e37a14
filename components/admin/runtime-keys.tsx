"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { buttonClass, Empty, ErrorBox, inputClass, Loading, Panel, ScrollBox } from "./ui";
import { Time } from "@/components/time";
import { JOB_TYPES, type JobTypeName } from "@/server/job-types/catalogue";
import { ConfirmRevoke, KeyState } from "./revoke";
import { refreshAfterWrite } from "@/components/trpc/refresh";

type JobType = JobTypeName;
type Scope = { jobTypes: JobType[]; mayReceiveLearnerKeys: boolean };

const scopeText = (s: Scope) =>
  `${s.jobTypes.length ? s.jobTypes.map((t) => t.replaceAll("_", " ")).join(", ") : "all job types"}; ${
    s.mayReceiveLearnerKeys ? "may receive learners' own keys" : "no learners' own keys"
  }`;

/** The scope fields (docs/contract.md#consent-credentials-and-cancellation): job types (none ticked: all) and learners' own keys. */
function ScopeFields({ value, onChange, idPrefix }: { value: Scope; onChange: (s: Scope) => void; idPrefix: string }) {
  return (
    <fieldset className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-700">
      <legend className="sr-only">Scope</legend>
      {JOB_TYPES.map((t) => (
        <label key={t} className="inline-flex items-center gap-1">
          <input
            type="checkbox"
            id={`${idPrefix}-${t}`}
            checked={value.jobTypes.includes(t)}
            onChange={(e) =>
              onChange({
                ...value,
                jobTypes: e.target.checked ? [...value.jobTypes, t] : value.jobTypes.filter((x) => x !== t),
              })
            }
          />
          {t.replaceAll("_", " ")}
        </label>
      ))}
      <span className="text-slate-500">(none ticked: all types)</span>
      <label className="inline-flex items-center gap-1 font-medium">
        <input
          type="checkbox"
          checked={value.mayReceiveLearnerKeys}
          onChange={(e) => onChange({ ...value, mayReceiveLearnerKeys: e.target.checked })}
        />
        May receive learners’ own DeepSeek keys
      </label>
    </fieldset>
  );
}

const NEW_SCOPE: Scope = { jobTypes: [], mayReceiveLearnerKeys: false };

/**
 * Runtime API keys: create (the key is shown once, with a copy button) with its scopes, list,
 * change a key's scopes, revoke (two-step). Every change is audited on the server.
 */
export function RuntimeKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.admin.runtimeKeys.list.queryOptions());
  const refresh = () => void refreshAfterWrite(queryClient, trpc.admin.runtimeKeys.list.pathFilter());
  const create = useMutation(
    trpc.admin.runtimeKeys.create.mutationOptions({
      onSuccess: () => (setName(""), setNewScope(NEW_SCOPE), refresh()),
    }),
  );
  const revoke = useMutation(
    trpc.admin.runtimeKeys.revoke.mutationOptions({ onSuccess: () => (setConfirm(null), refresh()) }),
  );
  const setScope = useMutation(
    trpc.admin.runtimeKeys.setScope.mutationOptions({ onSuccess: () => (setEditing(null), refresh()) }),
  );
  const [name, setName] = useState("");
  const [scope, setNewScope] = useState<Scope>(NEW_SCOPE);
  const [editing, setEditing] = useState<{ id: string; scope: Scope } | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  return (
    <Panel title="Runtime API keys">
      <form
        className="mb-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setCopied(false);
          create.mutate({ name, ...scope });
        }}
      >
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          New key name
          <input
            className={inputClass}
            value={name}
            required
            maxLength={100}
            placeholder="e.g. gpu-pool-eu"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <button type="submit" className={buttonClass("primary")} disabled={!name.trim() || create.isPending}>
          Create key
        </button>
        <ScopeFields value={scope} onChange={setNewScope} idPrefix="new-key" />
      </form>
      <ErrorBox error={create.error ?? revoke.error ?? setScope.error} />
      {create.data && (
        <div role="status" className="mb-3 space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-900">
            Key “{create.data.name}” created. Copy it now: it is shown only once.
          </p>
          <div className="flex items-center gap-2">
            <code data-testid="new-key" className="flex-1 overflow-x-auto rounded bg-white px-2 py-1 font-mono text-xs">
              {create.data.key}
            </code>
            <button
              type="button"
              className={buttonClass()}
              onClick={() =>
                void navigator.clipboard?.writeText(create.data.key).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
        </div>
      )}
      {keys.isLoading && <Loading />}
      <ErrorBox error={keys.error} retry={() => void keys.refetch()} />
      {keys.data && keys.data.items.length === 0 && <Empty>No keys yet.</Empty>}
      {keys.data && keys.data.items.length > 0 && (
        <ScrollBox label="Runtime API keys">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr>
                <th className="py-1">Name</th>
                <th>Prefix</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Scope</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((k) => (
                <tr key={k.id} className="border-t border-slate-100" data-testid={`key-${k.name}`}>
                  <td className="py-1.5">{k.name}</td>
                  <td className="font-mono text-xs">{k.prefix}…</td>
                  <td className="text-xs">
                    <Time value={k.createdAt} />
                  </td>
                  <td className="text-xs">
                    <Time value={k.lastUsedAt} relative />
                  </td>
                  <td className="text-xs" data-testid="key-scope">
                    {editing?.id === k.id ? (
                      <span className="flex flex-col gap-1">
                        <ScopeFields
                          value={editing.scope}
                          onChange={(s) => setEditing({ id: k.id, scope: s })}
                          idPrefix={`edit-${k.id}`}
                        />
                        <span className="inline-flex gap-1">
                          <button
                            type="button"
                            className={buttonClass("primary")}
                            disabled={setScope.isPending}
                            onClick={() => setScope.mutate({ id: k.id, ...editing.scope })}
                          >
                            Save scope
                          </button>
                          <button type="button" className={buttonClass("ghost")} onClick={() => setEditing(null)}>
                            Cancel
                          </button>
                        </span>
                      </span>
                    ) : (
                      <span className="inline-flex items-center gap-2">
                        {scopeText(k)}
                        {!k.revokedAt && (
                          <button
                            type="button"
                            className={buttonClass("ghost")}
                            onClick={() =>
                              setEditing({
                                id: k.id,
                                scope: { jobTypes: k.jobTypes, mayReceiveLearnerKeys: k.mayReceiveLearnerKeys },
                              })
                            }
                          >
                            Edit scope
                          </button>
                        )}
                      </span>
                    )}
                  </td>
                  <td className="text-xs">
                    <KeyState revokedAt={k.revokedAt} />
                  </td>
                  <td className="text-right">
                    {!k.revokedAt && (
                      <ConfirmRevoke
                        asking={confirm === k.id}
                        pending={revoke.isPending}
                        onAsk={() => setConfirm(k.id)}
                        onConfirm={() => revoke.mutate({ id: k.id })}
                        onKeep={() => setConfirm(null)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </Panel>
  );
}
