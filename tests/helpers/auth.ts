import { randomInt } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { handleAuthRequest } from "@/server/auth/handler";
import { appConfig } from "@/server/config";
import type { Session } from "@/server/auth/session";
import { getDb } from "@/server/db";
import { createContext } from "@/server/trpc/init";
import { createCaller } from "@/server/trpc/root";
import { uid } from "./factories";

/** The zero-setup app's own origin: the one local origin better-auth trusts without BETTER_AUTH_URL. */
export const APP_URL = `http://localhost:${appConfig.port}`;

/** A hand-built session for createCaller, as STYLE.md asks; the user must exist in the database. */
export function sessionOf(user: { id: string; email: string; name: string; role: "learner" | "admin" }): Session {
  return {
    id: uid("sess"),
    expiresAt: new Date(Date.now() + 3_600_000),
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
  };
}

export function callerAs(user: Parameters<typeof sessionOf>[0] | null) {
  return createCaller({ session: user ? sessionOf(user) : null });
}

/** A caller whose context comes from real request headers (cookie, bearer), through createContext. */
export async function callerFromHeaders(headers: Record<string, string>) {
  return createCaller(await createContext({ headers: new Headers(headers) }));
}

/** Gives a user an email + password account the way the seed does. */
export async function setPassword(userId: string, password: string) {
  await getDb().account.create({
    data: {
      id: uid("acct"),
      providerId: "credential",
      accountId: userId,
      userId,
      password: await hashPassword(password),
    },
  });
}

/** A fresh client IP, so tests never share better-auth's per-IP buckets. */
export function uniqueIp() {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

/** A request to the real /api/auth route (body limit, client address, better-auth). */
export function authRequest(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; ip?: string } = {},
) {
  return handleAuthRequest(
    new Request(`${APP_URL}/api/auth${path}`, {
      method: init.method ?? "POST",
      headers: {
        "content-type": "application/json",
        origin: APP_URL,
        "x-forwarded-for": init.ip ?? uniqueIp(),
        ...init.headers,
      },
      body: init.body === undefined ? (init.method === "GET" ? undefined : "{}") : JSON.stringify(init.body),
    }),
  );
}

export function signIn(email: string, password: string, ip?: string) {
  return authRequest("/sign-in/email", { body: { email, password }, ip });
}

/** The session cookie (name=value) that a sign-in answer set. */
export function sessionCookie(res: Response): string {
  const cookie = res.headers.getSetCookie().find((c) => c.includes("session_token="));
  if (!cookie) throw new Error(`no session cookie in the answer (status ${res.status})`);
  return cookie.split(";")[0]!;
}

export async function signedInCookie(email: string, password: string) {
  const res = await signIn(email, password);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return sessionCookie(res);
}
