import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { InvitationForm, InvitationNotice } from "@/components/auth/invitation-form";
import { lookupInvitation } from "@/server/account/invitations";
import { signupConfig } from "@/server/config";

export const dynamic = "force-dynamic";
// The site-wide Referrer-Policy (strict-origin-when-cross-origin) sends no path, so no token, to other sites.
// Not "no-referrer": browsers then post the form with `Origin: null`, which the CSRF check refuses.
export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("invitation");
  return { title: t("metaTitle") };
}

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
