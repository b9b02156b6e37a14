import { startSsoFromForm } from "@/server/auth/sso-start";

export const dynamic = "force-dynamic";

// The "Sign in with …" button's action: works without JavaScript (server/auth/sso-start.ts).
export { startSsoFromForm as POST };
