import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { AdminShell } from "@/components/admin/admin-shell";
import { requireAdminPage } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/**
 * The first of the two admin guards: non-admins never get a page; every admin procedure checks again.
 * The console is English whatever the admin's own learner language: its times and
 * numbers are formatted as English too, and the subtree says so to screen readers. The shared
 * header pieces (sign-out) take their English words from the learner catalogue.
 */
export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  const { user } = await requireAdminPage();
  return (
    <NextIntlClientProvider locale="en" messages={{ header: en.header }}>
      <div lang="en">
        <AdminShell email={user.email}>{children}</AdminShell>
      </div>
    </NextIntlClientProvider>
  );
}
