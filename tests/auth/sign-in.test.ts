import { verifyPassword } from "better-auth/crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { pageRedirect } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { signInThrottle } from "@/server/auth/sign-in-throttle";
import { APP_URL, authRequest, callerFromHeaders, sessionCookie, setPassword, signIn, signedInCookie, uniqueIp } from "../helpers/auth";
import { createLearner, uid, type Learner } from "../helpers/factories";
import { trpcHttp } from "../helpers/trpc-route";

let learner: Learner;
let password: string;

beforeEach(async () => {
  learner = await createLearner();
  password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
});

afterEach(() => resetClock());

describe("email + password sign-in", () => {
  it("sets an http-only, SameSite session cookie that opens the learner's session, and hands no token to scripts", async () => {
    const res = await signIn(learner.user.email, password);
    expect(res.status).toBe(200);
    const setCookie = res.headers.getSetCookie().find((c) => c.includes("session_token="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    const body = await res.json();
    expect(body).not.toHaveProperty("token");
    const token = (await getDb().session.findFirstOrThrow({ where: { userId: learner.user.id } })).token;
    expect(JSON.stringify(body)).not.toContain(token);

    const caller = await callerFromHeaders({ cookie: sessionCookie(res) });
    expect((await caller.me.get())?.user).toEqual({ id: learner.user.id, email: learner.user.email, name: learner.user.name, role: "learner" });
  });

  it("get-session answers without the session token", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    const res = await authRequest("/get-session", { method: "GET", headers: { cookie } });
    const body = await res.json();
    expect(body.user.id).toBe(learner.user.id);
    expect(body.session).not.toHaveProperty("token");
  });

  it("stores the password as a salted scrypt hash, never in plain text", async () => {
    const account = await getDb().account.findFirstOrThrow({ where: { userId: learner.user.id, providerId: "credential" } });
    expect(account.password).not.toContain(password);
    expect(account.password!.length).toBeGreaterThan(60);
    expect(await verifyPassword({ hash: account.password!, password })).toBe(true);
    expect(await verifyPassword({ hash: account.password!, password: `${password}x` })).toBe(false);
  });

  it("a wrong password and an unknown email get the same 401 and no cookie", async () => {
    const wrong = await signIn(learner.user.email, "not-the-password");
    const unknown = await signIn(`${uid("nobody")}@example.test`, "not-the-password");
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.headers.getSetCookie().some((c) => c.includes("session_token=") && !c.includes("Max-Age=0"))).toBe(false);
    }
    expect((await wrong.json()).code).toBe((await unknown.json()).code);
  });

  it("sign-up is closed: accounts are provisioned", async () => {
    const email = `${uid("new")}@example.test`;
    const res = await authRequest("/sign-up/email", { body: { email, password: "a-long-password", name: "New" } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await getDb().user.count({ where: { email } })).toBe(0);
  });
});

describe("sign-out and expiry", () => {
  it("sign-out deletes the session: the old cookie opens nothing", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    expect((await trpcHttp("query", "consent.get", undefined, { cookie })).status).toBe(200);
    const out = await authRequest("/sign-out", { headers: { cookie } });
    expect(out.status).toBe(200);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
    expect(await getSession(new Headers({ cookie }))).toBeNull();
    const after = await trpcHttp("query", "consent.get", undefined, { cookie });
    expect(after.status).toBe(401);
    expect(after.body.error.data.appCode).toBe("UNAUTHORIZED");
  });

  it("an expired session is no session", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    expect(await getSession(new Headers({ cookie }))).not.toBeNull();
    await getDb().session.updateMany({ where: { userId: learner.user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await getSession(new Headers({ cookie }))).toBeNull();
    const res = await trpcHttp("query", "jobs.list", {}, { cookie });
    expect(res.status).toBe(401);
  });

  it("sessions last seven days", async () => {
    await signedInCookie(learner.user.email, password);
    const session = await getDb().session.findFirstOrThrow({ where: { userId: learner.user.id } });
    const days = (session.expiresAt.getTime() - session.createdAt.getTime()) / 86_400_000;
    expect(days).toBeCloseTo(7, 1);
  });
});

// Each attempt hashes a password (scrypt): generous time on a busy two-core machine.
describe("failed sign-in limits", { timeout: 90_000 }, () => {
  it("locks an account after too many failures, from whatever IPs, until the window passes", async () => {
    const email = learner.user.email;
    for (let i = 0; i < signInThrottle.maxFailures; i++) {
      expect((await signIn(email.toUpperCase(), `wrong-${i}`, uniqueIp())).status).toBe(401);
    }
    const row = await getDb().signInThrottle.findUniqueOrThrow({ where: { email } });
    expect(row.failures).toBe(signInThrottle.maxFailures);

    // Locked: even the right password is refused, and no session is made.
    const locked = await signIn(email, password, uniqueIp());
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("SIGN_IN_LOCKED");
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);

    advanceClock(signInThrottle.windowMs + 1000);
    const later = await signIn(email, password, uniqueIp());
    expect(later.status).toBe(200);
    expect(await getDb().signInThrottle.count({ where: { email } })).toBe(0);
  });

  it("a successful sign-in clears the count", async () => {
    const email = learner.user.email;
    // One failure, a success, then max - 1 failures: without the reset that would be a lock.
    expect((await signIn(email, "wrong", uniqueIp())).status).toBe(401);
    expect((await signIn(email, password, uniqueIp())).status).toBe(200);
    for (let i = 0; i < signInThrottle.maxFailures - 1; i++) expect((await signIn(email, "wrong", uniqueIp())).status).toBe(401);
    expect((await signIn(email, password, uniqueIp())).status).toBe(200);
  });

  it("failures at an unknown email count the same way, so a lock tells nothing about who has an account", async () => {
    const email = `${uid("ghost")}@example.test`;
    for (let i = 0; i < signInThrottle.maxFailures; i++) expect((await signIn(email, "wrong", uniqueIp())).status).toBe(401);
    expect((await signIn(email, "wrong", uniqueIp())).status).toBe(429);
  });

  it("limits sign-in attempts per IP, counted in the database", async () => {
    const ip = uniqueIp();
    // Every request to the path counts, so bodies without a password (400, no hashing) keep the
    // test fast; the 21st request, a real attempt, is refused before any password check.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await authRequest("/sign-in/email", { body: { email: `${uid("spray")}@example.test` }, ip })).status);
    expect(statuses.every((s) => s === 400)).toBe(true);
    const refused = await signIn(learner.user.email, password, ip);
    expect(refused.status).toBe(429);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
    expect(await getDb().rateLimit.count({ where: { key: { contains: ip } } })).toBe(1);
    // Another IP is not affected.
    expect((await signIn(learner.user.email, password, uniqueIp())).status).toBe(200);
  });
});

describe("cross-site requests", () => {
  it.each([
    ["another origin", { origin: "http://evil.example" }],
    ["a cross-site form", { origin: "", "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" }],
  ])("better-auth refuses a sign-in posted from %s", async (_name, headers) => {
    const res = await authRequest("/sign-in/email", { body: { email: learner.user.email, password }, headers });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("better-auth refuses a cookie-carrying sign-out from another origin", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    const res = await authRequest("/sign-out", { headers: { cookie, origin: "http://evil.example" } });
    expect(res.status).toBe(403);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(1);
  });

  it("a tRPC mutation from another site is refused before it runs, even with the learner's cookie", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    for (const headers of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<string, string>[]) {
      const res = await trpcHttp("mutation", "consent.set", { granted: false }, { cookie, ...headers });
      expect(res.status).toBe(403);
      expect(res.body.error.data.appCode).toBe("FORBIDDEN");
    }
    expect((await getDb().aiConsent.findUniqueOrThrow({ where: { userId: learner.user.id } })).granted).toBe(true);

    const same = await trpcHttp("mutation", "consent.set", { granted: false }, { cookie, origin: APP_URL, host: "localhost:3000", "sec-fetch-site": "same-origin" });
    expect(same.status).toBe(200);
    expect((await getDb().aiConsent.findUniqueOrThrow({ where: { userId: learner.user.id } })).granted).toBe(false);
  });
});

describe("page guards", () => {
  const session = (role: "learner" | "admin") => ({ id: "s", expiresAt: new Date(), user: { id: "u", email: "e", name: "n", role } });

  it("the admin layout sends anonymous visitors to sign in and learners home; admins pass", () => {
    expect(pageRedirect(null, "admin", "/admin")).toBe("/sign-in?next=%2Fadmin");
    expect(pageRedirect(session("learner"), "admin", "/admin")).toBe("/");
    expect(pageRedirect(session("admin"), "admin", "/admin")).toBeNull();
  });

  it("learner pages need a session of either role", () => {
    expect(pageRedirect(null, "learner", "/")).toBe("/sign-in?next=%2F");
    expect(pageRedirect(session("learner"), "learner", "/")).toBeNull();
    expect(pageRedirect(session("admin"), "learner", "/")).toBeNull();
  });
});
