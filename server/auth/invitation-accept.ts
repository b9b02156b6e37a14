import { AppError, isAppError } from "../errors";
import { acceptInvitation } from "../account/invitations";
import { limitRequestBody } from "../security/body-limit";
import { findUnstorable } from "../security/storable-text";
import { isCrossSiteRequest } from "../trpc/same-origin";
import { handleAuthRequest } from "./handler";
import { seeOther } from "./form-post";
import { requestLocale } from "../i18n/locales";

function errorJson(e: AppError): Response {
  return Response.json(
    { error: { code: e.code, message: e.message } },
    { status: e.status, headers: { "cache-control": "no-store" } },
  );
}

/** The body as a plain object of the three fields, from JSON or a form; AppError when it is not one. */
type Fields = { token: unknown; password: unknown; repeat: unknown; name: unknown };

async function readFields(req: Request, isForm: boolean): Promise<Fields> {
  if (isForm) {
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      throw new AppError("INVALID_REQUEST", "the form could not be read");
    }
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : undefined;
    };
    return { token: field("token"), password: field("password"), repeat: field("repeat"), name: field("name") };
  }
  let body: unknown;
  try {
    body = JSON.parse(await req.text());
  } catch {
    throw new AppError("MALFORMED_JSON", "the body is not JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new AppError("INVALID_REQUEST", "the body must be a JSON object");
  const bad = findUnstorable(body);
  if (bad.length) throw new AppError("INVALID_REQUEST", `${bad[0]!.path.join(".") || "(body)"} ${bad[0]!.message}`);
  const fields = body as Record<string, unknown>;
  // Own properties only: a body's "__proto__" or "toString" never stands in for a field.
  const own = (name: string) => (Object.hasOwn(fields, name) ? fields[name] : undefined);
  return { token: own("token"), password: own("password"), repeat: own("repeat"), name: own("name") };
}

/**
 * POST /api/invitations/accept: the invitation page's form (works without JavaScript: 303 to the
 * learner page, or back to the page with `?error=CODE`) and JSON clients (200 or 4xx
 * `{error: {code, message}}`). On success the learner is signed in through better-auth's own
 * sign-in with the new password, so the session cookie is exactly a sign-in's.
 */
export async function acceptInvitationRequest(req: Request): Promise<Response> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  const isForm = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(
    limited.headers.get("content-type") ?? "",
  );
  let token: unknown;
  try {
    if (isCrossSiteRequest(limited)) throw new AppError("FORBIDDEN", "cross-site request refused");
    const fields = await readFields(limited, isForm);
    token = fields.token;
    if (fields.repeat !== undefined && fields.repeat !== fields.password)
      throw new AppError("WEAK_PASSWORD", "the two passwords differ");
    const accepted = await acceptInvitation({ ...fields, locale: requestLocale(limited.headers) });
    const signIn = await handleAuthRequest(
      new Request(new URL("/api/auth/sign-in/email", limited.url), {
        method: "POST",
        headers: (() => {
          const h = new Headers(limited.headers);
          h.set("content-type", "application/json");
          return h;
        })(),
        body: JSON.stringify({ email: accepted.email, password: fields.password }),
      }),
    );
    const cookies = signIn.ok ? signIn.headers.getSetCookie() : [];
    // The account exists either way; without a session (a refused sign-in) the learner signs in by hand.
    const to = signIn.ok ? "/" : "/sign-in";
    if (isForm) return seeOther(to, cookies);
    const res = Response.json(
      { accepted: true, signedIn: signIn.ok, redirect: to },
      { headers: { "cache-control": "no-store" } },
    );
    for (const cookie of cookies) res.headers.append("set-cookie", cookie);
    return res;
  } catch (e) {
    if (!isAppError(e)) throw e;
    if (!isForm) return errorJson(e);
    const back =
      typeof token === "string" && /^[A-Za-z0-9_-]{43}$/.test(token) ? `/invite/${token}` : "/invite/invalid";
    return seeOther(`${back}?error=${e.code}`);
  }
}
