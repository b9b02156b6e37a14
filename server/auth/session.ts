import type { Role } from "../generated/prisma/enums";
import { isLocale, type Locale } from "../i18n/locales";
import { getAuth } from "./auth";

export type SessionUser = {
  id: string;
  email: string;
  name: string;
  role: Role;
  mustChangePassword?: boolean;
  locale?: Locale;
};
export type Session = { id: string; expiresAt: Date; user: SessionUser };

/** The signed-in user behind a request's session cookie, or null (no, expired or signed-out session). */
export async function getSession(headers: Headers): Promise<Session | null> {
  const found = await getAuth().api.getSession({ headers });
  if (!found) return null;
  const { user, session } = found;
  return {
    id: session.id,
    expiresAt: session.expiresAt,
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role === "admin" ? "admin" : "learner",
      // Present only when set, so the usual session shape stays as it was.
      ...(user.mustChangePassword === true ? { mustChangePassword: true } : {}),
      ...(isLocale(user.locale) ? { locale: user.locale } : {}),
    },
  };
}
