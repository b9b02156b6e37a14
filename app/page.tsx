import { LearnerPage } from "@/components/learner/learner-page";
import { PageHeader } from "@/components/learner/page-header";
import { requirePageSession } from "@/server/auth/page-guards";

export const dynamic = "force-dynamic";

/** The learner page: everything happens client-side through tRPC and the live feed. */
export default async function Home() {
  const { user } = await requirePageSession("/");
  return (
    <>
      <PageHeader name={user.name} isAdmin={user.role === "admin"} />
      <main id="main" tabIndex={-1} className="focus:outline-none">
        <LearnerPage userId={user.id} initialJobId={null} />
      </main>
    </>
  );
}
