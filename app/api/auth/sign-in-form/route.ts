import { signInFromForm } from "@/server/auth/form-sign-in";

export const dynamic = "force-dynamic";

// The sign-in form's action: works without JavaScript (server/auth/form-sign-in.ts).
export { signInFromForm as POST };
