import { limitRequestBody } from "../security/body-limit";
import { handleAuthRequest } from "./handler";
import { safeReturnPath } from "./page-guards";

/** Why a form sign-in failed, as the sign-in page's `?error=` (never the credentials). */
export type SignInFormError =
  | "wrong"
  | "locked"
  | "refused"
  | "failed"
  | "SIGN_UP_CLOSED"
  | "EMAIL_DOMAIN_NOT_ALLOWED"
  | "ACCOUNT_NOT_LINKED"
  | "SSO_FAILED";

/** Every message the sign-in page shows for `?error=` (the form's and single sign-on's), in one place. */
export const SIGN_IN_FORM_MESSAGES: Record<SignInFormError, string> = {
  wrong: "Wrong email or password.",
  locked: "Too many attempts; wait a while and try again.",
  refused: "The sign-in was refused. Reload the page and try again.",
  failed: "Sign-in failed. Try again.",
  SIGN_UP_CLOSED: "There is no account for you here yet. Ask an administrator for an invitation.",
  EMAIL_DOMAIN_NOT_ALLOWED: "Accounts with your email domain cannot be created here.",
  ACCOUNT_NOT_LINKED: "An account with your email already exists with a password. Sign in with the password instead.",
  SSO_FAILED: "Single sign-on did not complete. Try again.",
};

function seeOther(location: string, setCookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of setCookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * The sign-in form's POST target, so the form works before and without JavaScript: the
 * credentials travel in the body, never in a URL. It hands the same email and password to
 * better-auth's own JSON endpoint, with the browser's Origin, Sec-Fetch-* and cookies, so the
 * CSRF check, the throttle and the session cookie are exactly those of a script sign-in. Then it
 * answers 303 to the return path, or back to the form with a reason.
 */
export async function signInFromForm(req: Request): Promise<Response> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  let form: FormData;
  try {
    form = await limited.formData();
  } catch {
    return seeOther("/sign-in?error=failed");
  }
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const returnTo = safeReturnPath(field("next"));
  const back = (error: SignInFormError) =>
    seeOther(`/sign-in?error=${error}${returnTo === "/" ? "" : `&next=${encodeURIComponent(returnTo)}`}`);

  const headers = new Headers(limited.headers);
  headers.set("content-type", "application/json");
  const url = new URL("/api/auth/sign-in/email", limited.url);
  const res = await handleAuthRequest(
    new Request(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: field("email"), password: field("password") }),
    }),
  );
  if (res.ok) return seeOther(returnTo, res.headers.getSetCookie());
  if (res.status === 401 || res.status === 400) return back("wrong");
  if (res.status === 429) return back("locked");
  if (res.status === 403) return back("refused");
  return back("failed");
}
