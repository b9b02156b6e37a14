/**
 * Why an open sign-up failed, as a code both sign-up paths share: the script form shows it at
 * once, the no-JavaScript form carries it back as the sign-in page's `?signup=`. The sign-in page
 * words it in the visitor's language (signUp.errors); better-auth's own messages are English.
 * Import-free, so the client component can use it.
 */
export const SIGN_UP_FORM_ERRORS = [
  "WEAK_PASSWORD",
  "INVALID_EMAIL",
  "ACCOUNT_EXISTS",
  "SIGN_UP_CLOSED",
  "EMAIL_DOMAIN_NOT_ALLOWED",
  "locked",
  "failed",
] as const;
export type SignUpFormError = (typeof SIGN_UP_FORM_ERRORS)[number];

export const isSignUpFormError = (value: unknown): value is SignUpFormError =>
  typeof value === "string" && (SIGN_UP_FORM_ERRORS as readonly string[]).includes(value);

/** better-auth's sign-up answer (status and its body's `code`) as one of the codes above. */
export function signUpFormError(status: number, code: unknown): SignUpFormError {
  if (status === 429) return "locked";
  switch (code) {
    case "PASSWORD_TOO_SHORT":
    case "PASSWORD_TOO_LONG":
    case "INVALID_PASSWORD":
      return "WEAK_PASSWORD";
    case "INVALID_EMAIL":
      return "INVALID_EMAIL";
    case "USER_ALREADY_EXISTS":
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return "ACCOUNT_EXISTS";
    case "SIGN_UP_CLOSED":
    case "EMAIL_DOMAIN_NOT_ALLOWED":
      return code;
    default:
      return "failed";
  }
}
