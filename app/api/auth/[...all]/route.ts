import { handleAuthRequest } from "@/server/auth/handler";

export const dynamic = "force-dynamic";

// better-auth's own endpoints: /api/auth/sign-in/email, /api/auth/sign-out, /api/auth/get-session, …
export { handleAuthRequest as GET, handleAuthRequest as POST };
