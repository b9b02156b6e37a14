import { limitRequestBody } from "../security/body-limit";
import { handleAuthRequest } from "./handler";

/** A 303 to `location` (the browser follows it with a GET), carrying any session cookies. */
export function seeOther(location: string, setCookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of setCookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

export type FormPost = { req: Request; field: (name: string) => string };

/**
 * A plain form post (body size limited): the request as read and its fields (absent or file
 * fields read as ""); a Response when the body is too large; null when it is not a form.
 */
export async function readFormPost(req: Request): Promise<FormPost | Response | null> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  let form: FormData;
  try {
    form = await limited.formData();
  } catch {
    return null;
  }
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  return { req: limited, field };
}

/**
 * Hands a form's fields to one of better-auth's own JSON endpoints with the browser's Origin,
 * Sec-Fetch-* and cookies, so the CSRF check, the throttle and the session cookie are exactly
 * those of a script post.
 */
export function postToAuth(req: Request, path: string, body: Record<string, string>): Promise<Response> {
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/json");
  return handleAuthRequest(
    new Request(new URL(`/api/auth${path}`, req.url), { method: "POST", headers, body: JSON.stringify(body) }),
  );
}
