import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { Field } from "./form-parts";

/** Every learner-facing line of the invitation page, in one place (for the zh-CN/en catalogues). */
export const INVITATION_TEXT = {
  title: "Set up your account",
  invitedAs: (email: string) => `You were invited as ${email}. Choose a password to finish.`,
  name: "Your name (optional)",
  password: `Password (at least ${MIN_PASSWORD_LENGTH} characters)`,
  repeat: "Password again",
  submit: "Create my account",
  signIn: "Go to sign-in",
  states: {
    not_found: {
      title: "This invitation link is not valid",
      body: "Check that you opened the whole link, or ask for a new one.",
    },
    expired: {
      title: "This invitation has expired",
      body: "Invitation links work for 7 days. Ask an administrator to send a new one.",
    },
    used: {
      title: "This invitation was already used",
      body: "The account is set up. Sign in with your email and password.",
    },
    revoked: {
      title: "This invitation was withdrawn",
      body: "Ask an administrator for a new invitation if you still need an account.",
    },
    closed: {
      title: "Sign-up is closed",
      body: "New accounts are not being created right now. Existing accounts can still sign in.",
    },
  },
  errors: {
    WEAK_PASSWORD: `Choose a password of ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, typed the same twice.`,
    ACCOUNT_EXISTS: "This email already has an account with a password. Sign in instead.",
    INVITATION_USED: "This invitation was already used. Sign in instead.",
    INVITATION_EXPIRED: "This invitation has expired. Ask for a new one.",
    INVITATION_REVOKED: "This invitation was withdrawn.",
    INVITATION_NOT_FOUND: "This invitation link is not valid.",
    SIGN_UP_CLOSED: "New accounts are not being created right now.",
    FORBIDDEN: "The request was refused. Reload the page and try again.",
    other: "Something went wrong. Try again.",
  } as Record<string, string>,
};

export type InvitationPageState = keyof typeof INVITATION_TEXT.states;

/** What a link that cannot be used shows: a plain explanation and the way to sign in (never a 500). */
export function InvitationNotice({ state }: { state: InvitationPageState }) {
  const text = INVITATION_TEXT.states[state];
  return (
    <>
      <h1 className="text-2xl font-semibold">{text.title}</h1>
      <p className="mt-2 text-sm text-slate-600">{text.body}</p>
      <a href="/sign-in" className="mt-6 inline-block underline">
        {INVITATION_TEXT.signIn}
      </a>
    </>
  );
}

/**
 * A plain form posted to /api/invitations/accept: it works before and without JavaScript, the
 * password travels only in the body, and the answer is a redirect to the learner page (signed
 * in) or back here with `?error=CODE`.
 */
export function InvitationForm({ token, email, error }: { token: string; email: string; error: string | null }) {
  const message = error ? (INVITATION_TEXT.errors[error] ?? INVITATION_TEXT.errors.other) : null;
  return (
    <>
      <h1 className="text-2xl font-semibold">{INVITATION_TEXT.title}</h1>
      <p className="mt-2 text-sm text-slate-600">{INVITATION_TEXT.invitedAs(email)}</p>
      <form method="post" action="/api/invitations/accept" className="mt-6 space-y-4" aria-label="accept invitation">
        <input type="hidden" name="token" value={token} />
        <input type="hidden" name="email" value={email} autoComplete="username" />
        <Field
          label={INVITATION_TEXT.name}
          name="name"
          type="text"
          autoComplete="name"
          required={false}
          maxLength={100}
        />
        <Field
          label={INVITATION_TEXT.password}
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSWORD_LENGTH}
          maxLength={MAX_PASSWORD_LENGTH}
        />
        <Field
          label={INVITATION_TEXT.repeat}
          name="repeat"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSWORD_LENGTH}
          maxLength={MAX_PASSWORD_LENGTH}
        />
        {message && (
          <p role="alert" className="text-sm text-red-700">
            {message}
          </p>
        )}
        <button type="submit" className="w-full rounded bg-slate-900 px-3 py-2 text-white">
          {INVITATION_TEXT.submit}
        </button>
      </form>
    </>
  );
}
