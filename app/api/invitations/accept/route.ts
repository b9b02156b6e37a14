import { acceptInvitationRequest } from "@/server/auth/invitation-accept";

export const dynamic = "force-dynamic";

// The invitation page's form: sets the learner's password and signs them in (server/auth/invitation-accept.ts).
export { acceptInvitationRequest as POST };
