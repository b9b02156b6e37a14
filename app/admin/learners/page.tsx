import { Learners } from "@/components/admin/learners";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Learners · Admin" };

export default async function LearnersPage() {
  await requireAdminPage();
  return <Learners />;
}
