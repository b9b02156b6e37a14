import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";

export function PageHeader({ name, isAdmin }: { name: string; isAdmin: boolean }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3">
        <Link href="/" className="font-semibold text-slate-900">
          Study coach
        </Link>
        <div className="flex items-center gap-3 text-sm">
          {isAdmin && (
            <Link href="/admin" className="text-indigo-700 underline-offset-2 hover:underline">
              Admin console
            </Link>
          )}
          <span className="hidden text-slate-600 sm:inline">{name}</span>
          <Link href="/account" className="text-indigo-700 underline-offset-2 hover:underline">
            Account
          </Link>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
