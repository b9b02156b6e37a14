import { signUpFromForm } from "@/server/auth/form-sign-up";

export const dynamic = "force-dynamic";

// The open sign-up form's action: works without JavaScript (server/auth/form-sign-up.ts).
export { signUpFromForm as POST };
