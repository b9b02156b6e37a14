"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { AlertBanner } from "./alert-banner";
import { LiveProvider, LiveToggle } from "./live";

const NAV = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/jobs", label: "Jobs" },
  { href: "/admin/learners", label: "Learners" },
  { href: "/admin/runtimes", label: "Runtimes & keys" },
  { href: "/admin/quotas", label: "Quotas" },
  { href: "/admin/webhooks", label: "Webhooks" },
  { href: "/admin/audit", label: "Audit log" },
];

/** The console frame: navigation, the live/pause control, sign-out. */
export function AdminShell({ email, children }: { email: string; children: React.ReactNode }) {
  const path = usePathname() ?? "";
  const active = (href: string) => (href === "/admin" ? path === "/admin" : path.startsWith(href));
  return (
    <LiveProvider>
      <header className="sticky top-0 z-20 border-b border-slate-200 bg-white/95 backdrop-blur">
        {/* Wraps on a phone: the header controls stay on screen instead of widening the page. */}
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2">
          <Link href="/admin" className="font-semibold text-slate-900">
            AI Job Runtime <span className="font-normal text-slate-600">· admin</span>
          </Link>
          <nav aria-label="Console" className="flex flex-wrap gap-1">
            {NAV.map((n) => (
              <Link
                key={n.href}
                href={n.href}
                aria-current={active(n.href) ? "page" : undefined}
                className={`rounded-md px-3 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${active(n.href) ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-600 hover:bg-slate-100"}`}
              >
                {n.label}
              </Link>
            ))}
          </nav>
          <div className="ml-auto flex items-center gap-3 text-sm text-slate-600">
            <LiveToggle />
            <span className="hidden md:inline">{email}</span>
            <SignOutButton />
          </div>
        </div>
        <AlertBanner />
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-5 focus:outline-none">
        {children}
      </main>
    </LiveProvider>
  );
}
