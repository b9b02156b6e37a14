import { verifyPassword } from "better-auth/crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { pageRedirect } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { clientIp } from "@/server/auth/client-ip";
import { accountSlowdownMs, signInKeys } from "@/server/auth/sign-in-throttle";
import { webSecurityConfig } from "@/server/config";
import {
  APP_URL,
  authRequest,
  callerFromHeaders,
  sessionCookie,
  setPassword,
  signIn,
  signedInCookie,
  uniqueIp,
} from "../helpers/auth";
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
    expect((await caller.me.get())?.user).toEqual({
      id: learner.user.id,
      email: learner.user.email,
      name: learner.user.name,
      role: "learner",
    });
  });

  it("get-session answers without the session token", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    const res = await authRequest("/get-session", { method: "GET", headers: { cookie } });
    const body = await res.json();
    expect(body.user.id).toBe(learner.user.id);
    expect(body.session).not.toHaveProperty("token");
  });

  it("stores the password as a salted scrypt hash, never in plain text", async () => {
    const account = await getDb().account.findFirstOrThrow({
      where: { userId: learner.user.id, providerId: "credential" },
    });
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
      expect(res.headers.getSetCookie().some((c) => c.includes("session_token=") && !c.includes("Max-Age=0"))).toBe(
        false,
      );
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
    await getDb().session.updateMany({
      where: { userId: learner.user.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
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
  const maxFailures = () => webSecurityConfig.signInMaxFailures;
  const pairRow = (email: string, ip: string) =>
    getDb().signInCounter.findUnique({ where: { key: signInKeys(email, ip).pair } });

  it("locks one client out of one account after too many failures, until the window passes; other clients still sign in", async () => {
    const email = learner.user.email;
    const attacker = uniqueIp();
    for (let i = 0; i < maxFailures(); i++)
      expect((await signIn(email.toUpperCase(), `wrong-${i}`, attacker)).status).toBe(401);
    expect((await pairRow(email, attacker))?.attempts).toBe(maxFailures());

    // Locked for that client: even the right password is refused, and no session is made.
    const locked = await signIn(email, password, attacker);
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("SIGN_IN_LOCKED");
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);

    // The owner, from anywhere else, is not locked out by someone else's guesses.
    expect((await signIn(email, password, uniqueIp())).status).toBe(200);

    advanceClock(webSecurityConfig.signInWindowMs + 1000);
    expect((await signIn(email, password, attacker)).status).toBe(200);
    expect(await pairRow(email, attacker)).toBeNull();
  });

  it("a successful sign-in clears the client's count", async () => {
    const email = learner.user.email;
    const ip = uniqueIp();
    // One failure, a success, then max - 1 failures: without the reset that would be a lock.
    expect((await signIn(email, "wrong", ip)).status).toBe(401);
    expect((await signIn(email, password, ip)).status).toBe(200);
    for (let i = 0; i < maxFailures() - 1; i++) expect((await signIn(email, "wrong", ip)).status).toBe(401);
    expect((await signIn(email, password, ip)).status).toBe(200);
  });

  it("an attempt that never reached a password check (no password) does not count", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < maxFailures() + 2; i++) {
      expect((await authRequest("/sign-in/email", { body: { email: learner.user.email }, ip })).status).toBe(400);
    }
    expect((await signIn(learner.user.email, password, ip)).status).toBe(200);
  });

  it("failures at an unknown email count the same way, so a lock tells nothing about who has an account", async () => {
    const email = `${uid("ghost")}@example.test`;
    const ip = uniqueIp();
    for (let i = 0; i < maxFailures(); i++) expect((await signIn(email, "wrong", ip)).status).toBe(401);
    expect((await signIn(email, "wrong", ip)).status).toBe(429);
  });

  it("60 concurrent wrong passwords from one client: exactly the limit reach a password check, the rest get 429", async () => {
    const email = learner.user.email;
    const ip = uniqueIp();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(email, `wrong-${i}`, ip)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(maxFailures());
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - maxFailures());
    // Every attempt that passed better-auth's per-IP limit was counted before its password check.
    const locked = (await Promise.all(answers.filter((r) => r.status === 429).map((r) => r.json()))).filter(
      (b) => b.code === "SIGN_IN_LOCKED",
    );
    expect((await pairRow(email, ip))?.attempts).toBe(maxFailures() + locked.length);
    expect(locked.length).toBeGreaterThan(0);
    // The right password from that client is now refused too.
    expect((await signIn(email, password, ip)).status).toBe(429);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
  });

  it("a made-up X-Forwarded-For buys no fresh budget: the address the server appended is the client", async () => {
    const email = learner.user.email;
    const peer = uniqueIp();
    for (let i = 0; i < maxFailures(); i++) {
      expect((await signIn(email, "wrong", `${uniqueIp()}, ${uniqueIp()}, ${peer}`)).status).toBe(401);
    }
    const spoofed = await signIn(email, password, `${uniqueIp()}, ${peer}`);
    expect(spoofed.status).toBe(429);
  });

  describe("an account guessed at from many clients", () => {
    beforeEach(() => {
      process.env.AUTH_ACCOUNT_SLOWDOWN_AFTER = "3";
      process.env.AUTH_ACCOUNT_SLOWDOWN_BASE_MS = "150";
      process.env.AUTH_ACCOUNT_SLOWDOWN_CAP_MS = "300";
    });
    afterEach(() => {
      delete process.env.AUTH_ACCOUNT_SLOWDOWN_AFTER;
      delete process.env.AUTH_ACCOUNT_SLOWDOWN_BASE_MS;
      delete process.env.AUTH_ACCOUNT_SLOWDOWN_CAP_MS;
    });

    it("is slowed down, never locked: the owner still signs in with the right password", async () => {
      const email = learner.user.email;
      const guesses = await Promise.all(Array.from({ length: 12 }, () => signIn(email, "wrong", uniqueIp())));
      expect(guesses.every((r) => r.status === 401)).toBe(true);
      const account = await getDb().signInCounter.findUniqueOrThrow({ where: { key: signInKeys(email, "x").account } });
      expect(account.attempts).toBe(12);

      // The next attempt waits before its password check (the account is over the slowdown mark) …
      expect(accountSlowdownMs(account.attempts)).toBe(300);
      const started = performance.now();
      const owner = await signIn(email, password, uniqueIp());
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      // … and is let in: a slowdown, not a lock anyone could trigger.
      expect(owner.status).toBe(200);
    });
  });

  it("a successful sign-in prunes counters whose window has ended, and keeps live ones", async () => {
    const ended = new Date(Date.now() - webSecurityConfig.signInWindowMs - 60_000);
    const old = `pair:${uid("old")}|10.0.0.1`;
    const live = `pair:${uid("live")}|10.0.0.1`;
    await getDb().signInCounter.createMany({
      data: [
        { key: old, attempts: 3, windowStart: ended },
        { key: live, attempts: 3, windowStart: new Date() },
      ],
    });
    expect((await signIn(learner.user.email, password, uniqueIp())).status).toBe(200);
    expect(await getDb().signInCounter.count({ where: { key: old } })).toBe(0);
    expect(await getDb().signInCounter.count({ where: { key: live } })).toBe(1);
  });

  it("the slowdown doubles per failure past the mark, up to the cap (defaults)", () => {
    expect([0, 9, 10, 11, 12, 15, 40].map(accountSlowdownMs)).toEqual([0, 0, 500, 1000, 2000, 10_000, 10_000]);
  });

  it("limits sign-in attempts per IP, counted in the database", async () => {
    const ip = uniqueIp();
    // Every request to the path counts, so bodies without a password (400, no hashing) keep the
    // test fast; the 21st request, a real attempt, is refused before any password check.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(
        (await authRequest("/sign-in/email", { body: { email: `${uid("spray")}@example.test` }, ip })).status,
      );
    expect(statuses.every((s) => s === 400)).toBe(true);
    const refused = await signIn(learner.user.email, password, ip);
    expect(refused.status).toBe(429);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
    expect(await getDb().rateLimit.count({ where: { key: { contains: ip } } })).toBe(1);
    // Another IP is not affected.
    expect((await signIn(learner.user.email, password, uniqueIp())).status).toBe(200);
  });

  it("the per-IP limit holds under 40 concurrent requests: exactly 20 pass, never a 5xx", async () => {
    const ip = uniqueIp();
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () =>
        authRequest("/sign-in/email", { body: { email: `${uid("spray")}@example.test` }, ip }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 400)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect((await getDb().rateLimit.findFirstOrThrow({ where: { key: { contains: ip } } })).count).toBe(40);
  });
});

describe("the client address behind trusted proxies", () => {
  const xff = (value: string) => new Headers({ "x-forwarded-for": value });

  it("takes the entry that many hops from the right, ignoring what the client wrote", () => {
    expect(clientIp(xff("6.6.6.6, 10.0.0.1"), 0)).toBe("10.0.0.1");
    expect(clientIp(xff("6.6.6.6, 203.0.113.7, 10.0.0.1"), 1)).toBe("203.0.113.7");
    expect(clientIp(xff("203.0.113.7"), 2)).toBe("203.0.113.7");
    expect(clientIp(xff("::ffff:127.0.0.1"), 0)).toBe("::ffff:127.0.0.1");
    expect(clientIp(new Headers(), 0)).toBe("unknown");
    expect(clientIp(xff("1.2.3.4, not an address<script>"), 0)).toBe("unknown");
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
    for (const headers of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<
      string,
      string
    >[]) {
      const res = await trpcHttp("mutation", "consent.set", { granted: false }, { cookie, ...headers });
      expect(res.status).toBe(403);
      expect(res.body.error.data.appCode).toBe("FORBIDDEN");
    }
    expect((await getDb().aiConsent.findUniqueOrThrow({ where: { userId: learner.user.id } })).granted).toBe(true);

    const same = await trpcHttp(
      "mutation",
      "consent.set",
      { granted: false },
      { cookie, origin: APP_URL, host: new URL(APP_URL).host, "sec-fetch-site": "same-origin" },
    );
    expect(same.status).toBe(200);
    expect((await getDb().aiConsent.findUniqueOrThrow({ where: { userId: learner.user.id } })).granted).toBe(false);
  });
});

describe("page guards", () => {
  const session = (role: "learner" | "admin") => ({
    id: "s",
    expiresAt: new Date(),
    user: { id: "u", email: "e", name: "n", role },
  });

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
