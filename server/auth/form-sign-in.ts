import { postToAuth, readFormPost, seeOther } from "./form-post";
import { safeReturnPath } from "./page-guards";

/** Why a form sign-in failed, as the sign-in page's `?error=` (never the credentials). */
export const SIGN_IN_FORM_ERRORS = [
  "wrong",
  "locked",
  "refused",
  "failed",
  "SIGN_UP_CLOSED",
  "EMAIL_DOMAIN_NOT_ALLOWED",
  "ACCOUNT_NOT_LINKED",
  "SSO_EMAIL_NOT_VERIFIED",
  "SSO_FAILED",
] as const;
export type SignInFormError = (typeof SIGN_IN_FORM_ERRORS)[number];
/** Only known codes are shown; the sign-in page words them in the visitor's language (signIn.errors). */
export const isSignInFormError = (value: unknown): value is SignInFormError =>
  typeof value === "string" && (SIGN_IN_FORM_ERRORS as readonly string[]).includes(value);

/**
 * The sign-in form's POST target, so the form works before and without JavaScript: the
 * credentials travel in the body, never in a URL. It hands the same email and password to
 * better-auth's own JSON endpoint, with the browser's Origin, Sec-Fetch-* and cookies, so the
 * CSRF check, the throttle and the session cookie are exactly those of a script sign-in. Then it
 * answers 303 to the return path, or back to the form with a reason.
 */
export async function signInFromForm(req: Request): Promise<Response> {
  const post = await readFormPost(req);
  if (post instanceof Response) return post;
  if (!post) return seeOther("/sign-in?error=failed");
  const returnTo = safeReturnPath(post.field("next"));
  const back = (error: SignInFormError) =>
    seeOther(`/sign-in?error=${error}${returnTo === "/" ? "" : `&next=${encodeURIComponent(returnTo)}`}`);

  const res = await postToAuth(post.req, "/sign-in/email", {
    email: post.field("email"),
    password: post.field("password"),
  });
  if (res.ok) return seeOther(returnTo, res.headers.getSetCookie());
  if (res.status === 401 || res.status === 400) return back("wrong");
  if (res.status === 429) return back("locked");
  if (res.status === 403) return back("refused");
  return back("failed");
}
