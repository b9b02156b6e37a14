import { Runtimes } from "@/components/admin/runtimes";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Runtimes · Admin" };

export default async function RuntimesPage() {
  await requireAdminPage();
  return <Runtimes />;
}
