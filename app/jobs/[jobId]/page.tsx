import { LearnerPage } from "@/components/learner/learner-page";
import { PageHeader } from "@/components/learner/page-header";
import { requirePageSession } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/**
 * One analysis by URL, inside the learner page. Ownership is checked by jobs.get: another
 * learner's job shows "not found", never its data.
 */
export default async function JobPage({ params }: { params: Promise<{ jobId: string }> }) {
  const { jobId } = await params;
  const { user } = await requirePageSession(`/jobs/${encodeURIComponent(jobId)}`);
  return (
    <>
      <PageHeader name={user.name} isAdmin={user.role === "admin"} />
      <main id="main" tabIndex={-1} className="focus:outline-none">
        <LearnerPage userId={user.id} initialJobId={jobId.slice(0, 64)} />
      </main>
    </>
  );
}
