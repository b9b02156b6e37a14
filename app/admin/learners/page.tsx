import { Suspense } from "react";
import { Learners } from "@/components/admin/learners";
import { Loading } from "@/components/admin/ui";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Learners · Admin" };

export default async function LearnersPage() {
  await requireAdminPage();
  return (
    <Suspense fallback={<Loading />}>
      <Learners />
    </Suspense>
  );
}
