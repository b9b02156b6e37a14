import { postToAuth, readFormPost, seeOther } from "./form-post";
import { isCrossSiteRequest } from "../trpc/same-origin";
import { signUpFormError, type SignUpFormError } from "./sign-up-errors";

/**
 * The open sign-up form's POST target (SIGNUP_MODE=open), so it works before and without
 * JavaScript like the sign-in form: the fields go to better-auth's own /sign-up/email (the
 * signup policy, the password rule, the throttle and the session cookie are exactly a script
 * sign-up's), then 303 to the learner page, or back to the sign-in page with `?signup=CODE`.
 * Neither the email nor the password ever goes into a URL.
 */
export async function signUpFromForm(req: Request): Promise<Response> {
  const back = (error: SignUpFormError) => seeOther(`/sign-in?signup=${error}`);
  const post = await readFormPost(req);
  if (post instanceof Response) return post;
  if (!post || isCrossSiteRequest(post.req)) return back("failed");
  const res = await postToAuth(post.req, "/sign-up/email", {
    name: post.field("name"),
    email: post.field("email"),
    password: post.field("password"),
  });
  if (res.ok) return seeOther("/", res.headers.getSetCookie());
  const answer = (await res.json().catch(() => null)) as { code?: unknown } | null;
  return back(signUpFormError(res.status, answer?.code));
}
