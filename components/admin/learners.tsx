"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { buttonClass, Empty, ErrorBox, inputClass, Loading, Panel, ScrollBox } from "./ui";
import { ConfirmRevoke } from "./revoke";
import { refreshAfterWrite } from "@/components/trpc/refresh";
import { describeLocale, LOCALE_NAMES, LOCALES } from "@/server/i18n/locales";
import { LearnerMasteryCell } from "./learner-mastery";
import { learnerViewQuery, readLearnerView, type LearnerView } from "./learner-view";

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

/** A column header that sorts by its figure: most first, again for fewest first (aria-sort says which). */
function SortHeader(props: {
  view: LearnerView;
  sort: LearnerView["sort"];
  onSort: (sort: LearnerView["sort"], dir: LearnerView["dir"]) => void;
  children: ReactNode;
}) {
  const active = props.view.sort === props.sort;
  return (
    <th aria-sort={active ? (props.view.dir === "asc" ? "ascending" : "descending") : "none"}>
      <button
        type="button"
        className="uppercase underline-offset-2 hover:underline focus-visible:underline"
        onClick={() => props.onSort(props.sort, active && props.view.dir === "desc" ? "asc" : "desc")}
      >
        {props.children}
        {active && <span aria-hidden="true">{props.view.dir === "asc" ? " ▲" : " ▼"}</span>}
      </button>
    </th>
  );
}

/** Learners and invitations: invite, re-send (new link, the old one dies), revoke; search, sort, filters and paging, all in the URL. */
export function Learners() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const key = params?.toString() ?? "";
  const view = useMemo(() => readLearnerView(new URLSearchParams(key)), [key]);
  // The newest view asked for: URL changes land in a transition, so two quick changes (a language,
  // then a checkbox) build on each other, not on the URL of the render before.
  const latest = useRef(view);
  useEffect(() => {
    latest.current = view;
  }, [view]);
  const { page } = view;
  // The box keeps what is typed; the URL follows it.
  const [search, setSearch] = useState(view.search);
  const go = (change: Partial<LearnerView>) => {
    latest.current = { ...latest.current, page: 1, ...change };
    router.replace(`${pathname}${learnerViewQuery(latest.current)}`, { scroll: false });
  };
  const setPage = (n: number) => go({ page: n });
  const onSort = (sort: LearnerView["sort"], dir: LearnerView["dir"]) => go({ sort, dir });
  const [email, setEmail] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const list = useQuery({
    ...trpc.admin.learners.list.queryOptions({
      search: view.search || undefined,
      page,
      pageSize: PAGE_SIZE,
      sort: view.sort,
      dir: view.dir,
      ...(view.language ? { language: view.language } : {}),
      ...(view.overdue ? { overdue: true } : {}),
      ...(view.forgotten ? { forgotten: true } : {}),
    }),
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
      <div role="search" aria-label="Filter learners" className="mb-2 flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          Search email or name
          <input
            className={inputClass}
            type="search"
            value={search}
            maxLength={200}
            onChange={(e) => (setSearch(e.target.value), go({ search: e.target.value }))}
          />
        </label>
        <label className="flex flex-col gap-0.5 text-xs text-slate-600">
          Language
          <select
            className={inputClass}
            value={view.language ?? ""}
            onChange={(e) => {
              const language = LOCALES.find((l) => l === e.target.value);
              go({ language });
            }}
          >
            <option value="">All languages</option>
            {LOCALES.map((l) => (
              <option key={l} value={l}>
                {LOCALE_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" checked={view.overdue} onChange={(e) => go({ overdue: e.target.checked })} />
          Has overdue cards
        </label>
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" checked={view.forgotten} onChange={(e) => go({ forgotten: e.target.checked })} />
          Has forgotten points
        </label>
      </div>
      {list.isLoading && <Loading />}
      <ErrorBox error={list.error} retry={() => void list.refetch()} />
      {list.data && list.data.items.length === 0 && (
        <Empty>No learners{search || view.language || view.overdue || view.forgotten ? " match" : " yet"}.</Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <ScrollBox label="Learners">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-slate-600 uppercase">
              <tr>
                <th className="py-1">Email</th>
                <th>Name</th>
                <SortHeader view={view} sort="newest" onSort={onSort}>
                  Since
                </SortHeader>
                <th>Invitation</th>
                <th>Signs in with</th>
                <th>Language</th>
                <SortHeader view={view} sort="lastActive" onSort={onSort}>
                  Last active
                </SortHeader>
                <SortHeader view={view} sort="due" onSort={onSort}>
                  Due
                </SortHeader>
                <SortHeader view={view} sort="overdue" onSort={onSort}>
                  Overdue
                </SortHeader>
                <SortHeader view={view} sort="forgotten" onSort={onSort}>
                  Forgotten points
                </SortHeader>
                <th>Mastery</th>
                <SortHeader view={view} sort="jobs" onSort={onSort}>
                  Jobs this month
                </SortHeader>
                <SortHeader view={view} sort="cost" onSort={onSort}>
                  Cost this month
                </SortHeader>
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
                      {l.stats ? l.stats.dueCards : "—"}
                    </td>
                    <td className="text-xs tabular-nums" data-testid="learner-overdue">
                      {l.stats ? l.stats.overdueCards : "—"}
                    </td>
                    <td className="text-xs tabular-nums" data-testid="learner-forgotten">
                      {l.stats ? l.stats.forgottenPoints : "—"}
                    </td>
                    <td className="text-xs">
                      <LearnerMasteryCell mastery={l.mastery} email={l.email} userId={l.userId} />
                    </td>
                    <td className="text-xs tabular-nums">{l.stats ? l.stats.jobsThisMonth : "—"}</td>
                    <td className="text-xs tabular-nums">{l.stats ? l.stats.costThisMonth.toFixed(4) : "—"}</td>
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
