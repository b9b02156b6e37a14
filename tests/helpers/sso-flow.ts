import { expect } from "vitest";
import { APP_URL, authRequest } from "./auth";
import { loginAtProvider } from "./oidc-provider";
import { handleAuthRequest } from "@/server/auth/handler";
import { getSession } from "@/server/auth/session";

export const SSO_CLIENT = { clientId: "job-runtime", clientSecret: "a-client-secret-for-the-tests" };
export const SSO_REDIRECT_URI = `${APP_URL}/api/auth/callback/oidc`;

/**
 * Points the app at this provider. The auth instance is built once with its plugins, so it is
 * dropped and rebuilt on the next request (a test switching providers: the operator changing
 * OIDC_ISSUER and restarting).
 */
export function useProvider(issuer: string) {
  process.env.OIDC_ISSUER = issuer;
  process.env.OIDC_CLIENT_ID = SSO_CLIENT.clientId;
  process.env.OIDC_CLIENT_SECRET = SSO_CLIENT.clientSecret;
  process.env.OIDC_PROVIDER_NAME = "Test IdP";
  delete (globalThis as { __auth?: unknown }).__auth;
}

/** The app's start and the provider's login, up to the callback URL (not yet sent to the app). */
export async function reachCallback(issuer: string, login: string) {
  const start = await authRequest("/sign-in/social", {
    body: { provider: "oidc", callbackURL: "/", errorCallbackURL: "/sign-in" },
  });
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  expect(url.startsWith(issuer)).toBe(true);
  const stateCookies = start.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
  const callback = await loginAtProvider(url, login, APP_URL);
  expect(callback).toMatch(new RegExp(`^${APP_URL}/api/auth/callback/oidc\\?`));
  return { callback, stateCookies };
}

/** Sends the callback to the app; its answer (a redirect) and the session it set, if any. */
export async function finishCallback({ callback, stateCookies }: { callback: string; stateCookies: string }) {
  const done = await handleAuthRequest(new Request(callback, { headers: { cookie: stateCookies } }));
  const cookie = done.headers
    .getSetCookie()
    .find((c) => c.includes("session_token=") && !c.includes("session_token=;"))
    ?.split(";")[0];
  const session = cookie ? await getSession(new Headers({ cookie })) : null;
  return { status: done.status, location: done.headers.get("location") ?? "", session };
}

/** The whole redirect flow for one login at the provider. */
export async function signInWithSso(issuer: string, login: string) {
  return finishCallback(await reachCallback(issuer, login));
}
