import { AdminShell } from "@/components/admin/admin-shell";
import { requireAdminPage } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/** The first of the two admin guards: non-admins never get a page; every admin procedure checks again. */
export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  const { user } = await requireAdminPage();
  return <AdminShell email={user.email}>{children}</AdminShell>;
}
