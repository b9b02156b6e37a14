import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { requirePageSession } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/** A signed-in placeholder until the learner page lands (its own issue). */
export default async function Home() {
  const { user } = await requirePageSession("/");
  return (
    <main className="mx-auto max-w-2xl p-8">
      <div className="flex items-center justify-between">
        <h1 className="text-2xl font-semibold">AI Job Runtime</h1>
        <SignOutButton />
      </div>
      <p className="mt-2 text-slate-600">
        Signed in as {user.name} ({user.role}).
      </p>
      {user.role === "admin" && (
        <p className="mt-4">
          <Link href="/admin" className="underline">
            Open the admin console
          </Link>
        </p>
      )}
    </main>
  );
}
