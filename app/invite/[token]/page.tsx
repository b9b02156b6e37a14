import { InvitationForm, InvitationNotice } from "@/components/auth/invitation-form";
import { lookupInvitation } from "@/server/account/invitations";
import { signupConfig } from "@/server/config";

export const dynamic = "force-dynamic";
export const metadata = { title: "Invitation", referrer: "no-referrer" };

/** The link of an invitation (npm run learner:invite, or the console's Learners page). */
export default async function InvitationPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await params;
  const { error } = await searchParams;
  const found = await lookupInvitation(token);
  const state = found.state === "valid" && signupConfig.mode === "closed" ? "closed" : found.state;
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-sm p-8 focus:outline-none">
      {state === "valid" ? (
        <InvitationForm token={token} email={found.email!} error={typeof error === "string" ? error : null} />
      ) : (
        <InvitationNotice state={state} />
      )}
    </main>
  );
}
