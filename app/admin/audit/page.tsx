import { AuditLog } from "@/components/admin/audit-log";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Audit · Admin" };

export default async function AuditPage() {
  await requireAdminPage();
  return <AuditLog />;
}
