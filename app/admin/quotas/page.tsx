import { LearnerQuotas } from "@/components/admin/learner-quotas";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Quotas · Admin" };

export default async function QuotasPage() {
  await requireAdminPage();
  return <LearnerQuotas />;
}
