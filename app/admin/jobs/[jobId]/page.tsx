import { JobDetail } from "@/components/admin/job-detail";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Job · Admin" };

export default async function JobPage({ params }: { params: Promise<{ jobId: string }> }) {
  await requireAdminPage();
  const { jobId } = await params;
  return <JobDetail jobId={jobId} />;
}
