import { getAuth } from "@/server/auth/auth";

export const dynamic = "force-dynamic";

// better-auth's own endpoints: /api/auth/sign-in/email, /api/auth/sign-out, /api/auth/get-session, …
const handler = (req: Request) => getAuth().handler(req);

export { handler as GET, handler as POST };
