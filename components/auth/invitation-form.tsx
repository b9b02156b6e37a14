import { getTranslations } from "next-intl/server";
import { INVITATION_DAYS } from "@/server/account/invitations";
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field, NewPasswordField } from "./form-parts";

/** The states of a link that cannot be used; each has a title and a body in the `invitation` catalogue. */
export type InvitationPageState = "not_found" | "expired" | "used" | "revoked" | "closed";

/** The `?error=CODE` values /api/invitations/accept sends back; any other code shows `errors.other`. */
const INVITATION_ERRORS = [
  "WEAK_PASSWORD",
  "ACCOUNT_EXISTS",
  "INVITATION_USED",
  "INVITATION_EXPIRED",
  "INVITATION_REVOKED",
  "INVITATION_NOT_FOUND",
  "SIGN_UP_CLOSED",
  "FORBIDDEN",
] as const;
type InvitationError = (typeof INVITATION_ERRORS)[number];
const isInvitationError = (code: string): code is InvitationError =>
  (INVITATION_ERRORS as readonly string[]).includes(code);

/** What a link that cannot be used shows: a plain explanation and the way to sign in (never a 500). */
export async function InvitationNotice({ state }: { state: InvitationPageState }) {
  const t = await getTranslations("invitation");
  return (
    <>
      <h1 className="text-2xl font-semibold">{t(`states.${state}.title`)}</h1>
      <p className="mt-2 text-sm text-slate-600">{t(`states.${state}.body`, { days: INVITATION_DAYS })}</p>
      <a href="/sign-in" className="mt-6 inline-block underline">
        {t("signIn")}
      </a>
    </>
  );
}

/**
 * A plain form posted to /api/invitations/accept: it works before and without JavaScript, the
 * password travels only in the body, and the answer is a redirect to the learner page (signed
 * in) or back here with `?error=CODE`.
 */
export async function InvitationForm({ token, email, error }: { token: string; email: string; error: string | null }) {
  const t = await getTranslations("invitation");
  const message = error
    ? isInvitationError(error)
      ? t(`errors.${error}`, { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH })
      : t("errors.other")
    : null;
  return (
    <>
      <h1 className="text-2xl font-semibold">{t("title")}</h1>
      <p className="mt-2 text-sm text-slate-600">{t("invitedAs", { email })}</p>
      <form method="post" action="/api/invitations/accept" className="mt-6 space-y-4" aria-label={t("formLabel")}>
        <input type="hidden" name="token" value={token} />
        <input type="hidden" name="email" value={email} autoComplete="username" />
        <Field label={t("name")} name="name" type="text" autoComplete="name" required={false} maxLength={100} />
        <NewPasswordField label={t("password", { min: MIN_PASSWORD_LENGTH })} name="password" />
        <NewPasswordField label={t("repeat")} name="repeat" />
        {message && (
          <p role="alert" className="text-sm text-red-700">
            {message}
          </p>
        )}
        <button type="submit" className="w-full rounded bg-slate-900 px-3 py-2 text-white">
          {t("submit")}
        </button>
      </form>
    </>
  );
}
