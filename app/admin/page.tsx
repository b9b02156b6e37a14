import { SignOutButton } from "@/components/auth/sign-out-button";
import { requireAdminPage } from "@/server/auth/page-guards";

/** A placeholder until the monitoring console lands (its own issue). */
export default async function AdminPage() {
  const { user } = await requireAdminPage();
  return (
    <main className="mx-auto max-w-2xl p-8">
      <div className="flex items-center justify-between">
        <h1 className="text-2xl font-semibold">Admin console</h1>
        <SignOutButton />
      </div>
      <p className="mt-2 text-slate-600">Signed in as {user.name} (admin). The monitoring console comes next.</p>
    </main>
  );
}
