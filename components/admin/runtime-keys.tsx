"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { buttonClass, Empty, ErrorBox, inputClass, Loading, Panel, ScrollBox } from "./ui";
import { Time } from "@/components/time";

/** Runtime API keys: create (the key is shown once, with a copy button), list, revoke (two-step). */
export function RuntimeKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.admin.runtimeKeys.list.queryOptions());
  const refresh = () => void queryClient.invalidateQueries(trpc.admin.runtimeKeys.list.pathFilter());
  const create = useMutation(
    trpc.admin.runtimeKeys.create.mutationOptions({ onSuccess: () => (setName(""), refresh()) }),
  );
  const revoke = useMutation(
    trpc.admin.runtimeKeys.revoke.mutationOptions({ onSuccess: () => (setConfirm(null), refresh()) }),
  );
  const [name, setName] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  return (
    <Panel title="Runtime API keys">
      <form
        className="mb-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setCopied(false);
          create.mutate({ name });
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
      </form>
      <ErrorBox error={create.error ?? revoke.error} />
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
                  <td className="text-xs">
                    {k.revokedAt ? (
                      <span className="text-rose-700">
                        revoked <Time value={k.revokedAt} />
                      </span>
                    ) : (
                      <span className="text-emerald-700">active</span>
                    )}
                  </td>
                  <td className="text-right">
                    {!k.revokedAt &&
                      (confirm === k.id ? (
                        <span className="inline-flex gap-1">
                          <button
                            type="button"
                            className={buttonClass("danger")}
                            disabled={revoke.isPending}
                            onClick={() => revoke.mutate({ id: k.id })}
                          >
                            Confirm revoke
                          </button>
                          <button type="button" className={buttonClass("ghost")} onClick={() => setConfirm(null)}>
                            Keep
                          </button>
                        </span>
                      ) : (
                        <button type="button" className={buttonClass()} onClick={() => setConfirm(k.id)}>
                          Revoke
                        </button>
                      ))}
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
