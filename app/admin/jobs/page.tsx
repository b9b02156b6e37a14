import { Suspense } from "react";
import { BulkRunsPanel } from "@/components/admin/bulk-progress";
import { JobExplorer } from "@/components/admin/job-explorer";
import { Loading } from "@/components/admin/ui";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Jobs · Admin" };

export default async function JobsPage() {
  await requireAdminPage();
  return (
    <div className="space-y-4">
      <BulkRunsPanel />
      <Suspense fallback={<Loading />}>
        <JobExplorer />
      </Suspense>
    </div>
  );
}
