"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { buttonClass, Empty, ErrorBox, inputClass, Loading, Panel, ScrollBox } from "./ui";
import { ConfirmRevoke } from "./revoke";
import { refreshAfterWrite } from "@/components/trpc/refresh";
import { describeLocale } from "@/server/i18n/locales";

const PAGE_SIZE = 25;
const STATE_LABEL = {
  pending: { text: "invited", className: "text-amber-700" },
  accepted: { text: "accepted", className: "text-emerald-700" },
  expired: { text: "expired", className: "text-rose-700" },
  revoked: { text: "revoked", className: "text-slate-500" },
  none: { text: "—", className: "text-slate-500" },
} as const;

/** The link of an invitation just sent: shown once, with a copy button (the server keeps only its hash). */
function SentLink({ email, link }: { email: string; link: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="mb-3 space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm">
      <p className="font-medium text-emerald-900">
        Invitation for {email}: hand this link to them. It works once, for 7 days, and is shown only now.
      </p>
      <div className="flex items-center gap-2">
        <code
          data-testid="invitation-link"
          className="flex-1 overflow-x-auto rounded bg-white px-2 py-1 font-mono text-xs"
        >
          {link}
        </code>
        <button
          type="button"
          className={buttonClass()}
          onClick={() =>
            void navigator.clipboard?.writeText(link).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}

/** Learners and invitations: invite, re-send (new link, the old one dies), revoke; search and paging. */
export function Learners() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [email, setEmail] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const list = useQuery({
    ...trpc.admin.learners.list.queryOptions({ search: search || undefined, page, pageSize: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void refreshAfterWrite(queryClient, trpc.admin.learners.list.pathFilter());
  const invite = useMutation(
    trpc.admin.learners.invite.mutationOptions({ onSuccess: () => (setEmail(""), refresh()) }),
  );
  const resend = useMutation(trpc.admin.learners.resend.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(
    trpc.admin.learners.revoke.mutationOptions({ onSuccess: () => (setConfirm(null), refresh()) }),
  );
  const sent = resend.data ?? invite.data;
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;

  return (
    <Panel title="Learners">
      <form
        className="mb-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          resend.reset();
          invite.mutate({ email });
        }}
      >
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          Invite by email
          <input
            className={inputClass}
            type="email"
            value={email}
            required
            maxLength={254}
            placeholder="learner@example.com"
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <button type="submit" className={buttonClass("primary")} disabled={!email.trim() || invite.isPending}>
          Invite
        </button>
      </form>
      <ErrorBox error={invite.error ?? resend.error ?? revoke.error} />
      {sent && <SentLink email={sent.email} link={sent.link} />}
      <label className="mb-2 flex flex-col gap-0.5 text-xs text-slate-600">
        Search email or name
        <input
          className={inputClass}
          type="search"
          value={search}
          maxLength={200}
          onChange={(e) => (setSearch(e.target.value), setPage(1))}
        />
      </label>
      {list.isLoading && <Loading />}
      <ErrorBox error={list.error} retry={() => void list.refetch()} />
      {list.data && list.data.items.length === 0 && <Empty>No learners{search ? " match" : " yet"}.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <ScrollBox label="Learners">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr>
                <th className="py-1">Email</th>
                <th>Name</th>
                <th>Since</th>
                <th>Invitation</th>
                <th>Signs in with</th>
                <th>Language</th>
                <th>Last active</th>
                <th>Due / overdue</th>
                <th>Forgotten points</th>
                <th>Jobs · cost this month</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((l) => {
                const state = STATE_LABEL[l.invitation];
                const canResend = l.invitationId && l.invitation !== "accepted";
                return (
                  <tr key={l.email} className="border-t border-slate-100" data-testid={`learner-${l.email}`}>
                    <td className="py-1.5">{l.email}</td>
                    <td>{l.name ?? "—"}</td>
                    <td className="text-xs">
                      <Time value={l.createdAt} />
                    </td>
                    <td className={`text-xs ${state.className}`}>
                      {state.text}
                      {l.invitation === "pending" && l.invitationExpiresAt && (
                        <span className="text-slate-500">
                          {" "}
                          until <Time value={l.invitationExpiresAt} />
                        </span>
                      )}
                    </td>
                    <td className="text-xs">
                      {l.userId
                        ? l.signIn.length
                          ? l.signIn.map((s) => (s === "sso" ? "single sign-on" : "password")).join(", ")
                          : "not yet (made by the platform API)"
                        : "—"}
                    </td>
                    <td className="text-xs" data-testid="learner-language">
                      {l.stats ? describeLocale(l.stats.locale) : "—"}
                    </td>
                    <td className="text-xs">
                      {l.stats?.lastActiveAt ? <Time value={l.stats.lastActiveAt} relative /> : "—"}
                    </td>
                    <td className="text-xs tabular-nums" data-testid="learner-due">
                      {l.stats ? `${l.stats.dueCards} / ${l.stats.overdueCards}` : "—"}
                    </td>
                    <td className="text-xs tabular-nums">{l.stats ? l.stats.forgottenPoints : "—"}</td>
                    <td className="text-xs tabular-nums">
                      {l.stats ? `${l.stats.jobsThisMonth} · ${l.stats.costThisMonth.toFixed(4)}` : "—"}
                    </td>
                    <td className="text-right whitespace-nowrap">
                      {canResend && (
                        <button
                          type="button"
                          className={buttonClass()}
                          disabled={resend.isPending}
                          onClick={() => (invite.reset(), resend.mutate({ invitationId: l.invitationId! }))}
                        >
                          Re-send
                        </button>
                      )}{" "}
                      {l.invitation === "pending" && (
                        <ConfirmRevoke
                          asking={confirm === l.invitationId}
                          pending={revoke.isPending}
                          onAsk={() => setConfirm(l.invitationId)}
                          onConfirm={() => revoke.mutate({ invitationId: l.invitationId! })}
                          onKeep={() => setConfirm(null)}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {list.data && list.data.total > PAGE_SIZE && (
        <nav aria-label="Learner pages" className="mt-2 flex items-center gap-2 text-sm">
          <button type="button" className={buttonClass()} disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages} ({list.data.total} in all)
          </span>
          <button type="button" className={buttonClass()} disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </Panel>
  );
}
