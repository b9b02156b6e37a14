"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { buttonClass, Empty, ErrorBox, inputClass, Loading, Panel, ScrollBox } from "./ui";
import { Time } from "@/components/time";
import { ConfirmRevoke, KeyState } from "./revoke";
import { DEFAULT_SCOPES, SCOPES, type Scope } from "@/server/platform/scopes";
import { refreshAfterWrite } from "@/components/trpc/refresh";

/** Service keys of the platform API (/api/v1): create with scopes (the key is shown once), list, revoke (two-step). */
export function ServiceKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.admin.serviceKeys.list.queryOptions());
  const refresh = () => void refreshAfterWrite(queryClient, trpc.admin.serviceKeys.list.pathFilter());
  const create = useMutation(
    trpc.admin.serviceKeys.create.mutationOptions({ onSuccess: () => (setName(""), refresh()) }),
  );
  const revoke = useMutation(
    trpc.admin.serviceKeys.revoke.mutationOptions({ onSuccess: () => (setConfirm(null), refresh()) }),
  );
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(DEFAULT_SCOPES);
  const [confirm, setConfirm] = useState<string | null>(null);
  const toggle = (s: Scope) => setScopes((on) => (on.includes(s) ? on.filter((x) => x !== s) : [...on, s]));
  return (
    <Panel title="Service keys (platform API)">
      <p className="mb-2 text-xs text-slate-600">
        A learning platform&apos;s servers call <code>/api/v1</code> with one of these (see{" "}
        <a className="underline" href="/api/v1/openapi.json">
          the OpenAPI document
        </a>
        ).
      </p>
      <form
        className="mb-3 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, scopes });
        }}
      >
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          New service key name
          <input
            className={inputClass}
            value={name}
            required
            maxLength={100}
            placeholder="e.g. lms-production"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <fieldset className="flex flex-wrap gap-2 text-xs text-slate-700">
          <legend className="mb-0.5 text-slate-600">Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} className="inline-flex items-center gap-1">
              <input type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} />
              <span className="font-mono">{s}</span>
            </label>
          ))}
        </fieldset>
        <button
          type="submit"
          className={buttonClass("primary")}
          disabled={!name.trim() || !scopes.length || create.isPending}
        >
          Create service key
        </button>
      </form>
      <ErrorBox error={create.error ?? revoke.error} />
      {create.data && (
        <div role="status" className="mb-3 space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-900">
            Service key “{create.data.name}” created. Copy it now: it is shown only once.
          </p>
          <code
            data-testid="new-service-key"
            className="block overflow-x-auto rounded bg-white px-2 py-1 font-mono text-xs"
          >
            {create.data.key}
          </code>
        </div>
      )}
      {keys.isLoading && <Loading />}
      <ErrorBox error={keys.error} retry={() => void keys.refetch()} />
      {keys.data && keys.data.items.length === 0 && <Empty>No service keys yet.</Empty>}
      {keys.data && keys.data.items.length > 0 && (
        <ScrollBox label="Service keys">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr>
                <th className="py-1">Name</th>
                <th>Prefix</th>
                <th>Scopes</th>
                <th>Last used</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((k) => (
                <tr key={k.id} className="border-t border-slate-100" data-testid={`service-key-${k.name}`}>
                  <td className="py-1.5">{k.name}</td>
                  <td className="font-mono text-xs">{k.prefix}…</td>
                  <td className="font-mono text-xs">{k.scopes.join(" ")}</td>
                  <td className="text-xs">
                    <Time value={k.lastUsedAt} relative />
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
