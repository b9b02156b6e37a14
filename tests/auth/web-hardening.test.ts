import { beforeEach, describe, expect, it } from "vitest";
import { safeReturnPath } from "@/server/auth/page-guards";
import { signInFromForm } from "@/server/auth/form-sign-in";
import { signUpFromForm } from "@/server/auth/form-sign-up";
import { stripSessionTokens } from "@/server/auth/auth";
import { getDb } from "@/server/db";
import { appConfig } from "@/server/config";
import { handleAuthRequest } from "@/server/auth/handler";
import { APP_URL, authRequest, setPassword, signedInCookie, uniqueIp } from "../helpers/auth";
import { createLearner, uid, type Learner } from "../helpers/factories";

let learner: Learner;
let password: string;

beforeEach(async () => {
  learner = await createLearner();
  password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
});

describe("the return path after sign-in (?next=)", () => {
  it.each([
    ["/\t/evil.com"],
    ["/\r\n/evil.com"],
    ["/\n/evil.com"],
    ["//evil.com"],
    ["/\\evil.com"],
    ["/\\/evil.com"],
    ["/..//evil.com"],
    ["https://evil.com"],
    ["javascript:alert(1)"],
    ["/\u0000"],
    [""],
  ])("%j goes home instead", (next) => {
    expect(safeReturnPath(next)).toBe("/");
  });

  it("same-site paths survive, percent-encoded so the Location header can always be written", () => {
    expect(safeReturnPath("/admin/jobs?status=failed#top")).toBe("/admin/jobs?status=failed#top");
    expect(safeReturnPath("/%09/evil.com")).toBe("/%09/evil.com");
    expect(safeReturnPath("/\u3002/evil.com")).toBe("/%E3%80%82/evil.com");
    expect(safeReturnPath("/\ud800")).toBe("/%EF%BF%BD");
    expect(safeReturnPath(["/jobs/1", "//evil.com"])).toBe("/jobs/1");
    for (const next of ["/a b", "/\u3002/x", "/%0d%0a/x"])
      expect(() => new Headers({ location: safeReturnPath(next) })).not.toThrow();
  });
});

describe("session tokens stay in the http-only cookie", () => {
  it("list-sessions answers every session without its token", async () => {
    const cookie = await signedInCookie(learner.user.email, password);
    await signedInCookie(learner.user.email, password);
    const res = await authRequest("/list-sessions", { method: "GET", headers: { cookie } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const sessions = JSON.parse(text) as Record<string, unknown>[];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s).not.toHaveProperty("token");
      expect(s.userId).toBe(learner.user.id);
    }
    for (const { token } of await getDb().session.findMany({ where: { userId: learner.user.id } }))
      expect(text).not.toContain(token);
  });

  it("strips tokens from every shape better-auth answers with, and leaves other answers alone", () => {
    expect(stripSessionTokens({ token: "t", user: { id: "u" } })).toEqual({ user: { id: "u" } });
    expect(stripSessionTokens({ session: { id: "s", token: "t" }, user: {} })).toEqual({
      session: { id: "s" },
      user: {},
    });
    expect(
      stripSessionTokens([
        { id: "a", token: "t1" },
        { id: "b", token: "t2" },
      ]),
    ).toEqual([{ id: "a" }, { id: "b" }]);
    const other = { status: true };
    expect(stripSessionTokens(other)).toBe(other);
  });
});

describe("zero-setup mode trusts the app's own origin only", () => {
  it("runs without BETTER_AUTH_URL here (the mode under test)", () => {
    expect(process.env.BETTER_AUTH_URL).toBeUndefined();
  });

  it.each([
    [`http://localhost:${appConfig.port + 1}`],
    ["http://localhost:1"],
    [`http://127.0.0.1:${appConfig.port + 1}`],
    [`https://localhost:${appConfig.port}.evil.example`],
  ])("a sign-in posted from %s (another local port) is refused", async (origin) => {
    const res = await authRequest("/sign-in/email", {
      body: { email: learner.user.email, password },
      headers: { origin },
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("X-Forwarded-Host and X-Forwarded-Proto name no trusted origin: a post from the host they claim is refused", async () => {
    const res = await authRequest("/sign-in/email", {
      body: { email: learner.user.email, password },
      headers: { origin: "https://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    });
    expect(res.status).toBe(403);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
  });

  it("at localhost and 127.0.0.1 on the app's port it signs in", async () => {
    for (const host of [`localhost:${appConfig.port}`, `127.0.0.1:${appConfig.port}`]) {
      const res = await authRequest("/sign-in/email", {
        body: { email: learner.user.email, password },
        headers: { origin: `http://${host}`, host },
      });
      expect(res.status).toBe(200);
    }
  });
});

describe("the sign-in form's POST target (works without JavaScript)", () => {
  function postForm(fields: Record<string, string>, headers: Record<string, string> = {}) {
    return signInFromForm(
      new Request(`${APP_URL}/api/auth/sign-in-form`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: APP_URL,
          "sec-fetch-site": "same-origin",
          "sec-fetch-mode": "navigate",
          "x-forwarded-for": uniqueIp(),
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }

  it("the right password: 303 to the return path with the session cookie", async () => {
    const res = await postForm({ email: learner.user.email, password, next: "/jobs/abc" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/jobs/abc");
    const cookie = res.headers.getSetCookie().find((c) => c.includes("session_token="));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(1);
  });

  it("a wrong password: 303 back to the form with a reason and no credentials in the URL", async () => {
    const res = await postForm({ email: learner.user.email, password: "wrong-password", next: "/admin" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe("/sign-in?error=wrong&next=%2Fadmin");
    expect(location).not.toContain("wrong-password");
    expect(location).not.toContain(encodeURIComponent(learner.user.email));
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("a hostile return path is not followed, and a cross-site form is refused", async () => {
    const evil = await postForm({ email: learner.user.email, password, next: "/\t/evil.com" });
    expect(evil.headers.get("location")).toBe("/");
    const cross = await postForm(
      { email: learner.user.email, password },
      { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    );
    expect(cross.headers.get("location")).toBe("/sign-in?error=refused");
    expect(cross.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });
});

describe("an opaque origin (Origin: null) is refused at every form door", () => {
  const nullOrigin = { origin: "null", "sec-fetch-site": "same-origin" };
  it("sign-in form, sign-up form and the JSON sign-in: no session, no account", async () => {
    const form = (path: string, fields: Record<string, string>) =>
      new Request(`${APP_URL}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...nullOrigin, "x-forwarded-for": uniqueIp() },
        body: new URLSearchParams(fields).toString(),
      });
    const signIn = await signInFromForm(form("/api/auth/sign-in-form", { email: learner.user.email, password }));
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe("/sign-in?error=refused");
    expect(signIn.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);

    process.env.SIGNUP_MODE = "open";
    try {
      const email = `${uid("null")}@example.test`;
      const signUp = await signUpFromForm(
        form("/api/auth/sign-up-form", { name: "N", email, password: "a-long-password-1" }),
      );
      expect(signUp.status).toBe(303);
      expect(signUp.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
      expect(await getDb().user.count({ where: { email } })).toBe(0);
    } finally {
      delete process.env.SIGNUP_MODE;
    }

    const json = await authRequest("/sign-in/email", {
      body: { email: learner.user.email, password },
      headers: nullOrigin,
    });
    expect(json.status).toBe(403);
    expect(await getDb().session.count({ where: { userId: learner.user.id } })).toBe(0);
  });
});

describe("hostile sign-in bodies", () => {
  it.each([
    ["a NUL in the email", { email: "a\u0000@example.test", password: "x".repeat(10) }],
    ["a NUL in the password", { email: "nul@example.test", password: "ab\u0000cdefgh" }],
    ["a lone surrogate", { email: "\ud800@example.test", password: "\udfffabcdefgh" }],
    ["a 100 KB email", { email: `${"a".repeat(100_000)}@example.test`, password: "abcdefgh" }],
    ["prototype names", { email: "__proto__", password: "toString", __proto__: { polluted: true }, constructor: "x" }],
    ["a deeply nested body", JSON.parse(`${'{"email":'.repeat(500)}"x"${"}".repeat(500)}`)],
    ["an array", [1, 2, 3]],
  ])("%s: a 4xx, never a 5xx", async (_name, body) => {
    const res = await authRequest("/sign-in/email", { body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it("malformed JSON and a form with hostile fields: 4xx or a redirect back, never a 5xx", async () => {
    const raw = await handleAuthRequest(
      new Request(`${APP_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: APP_URL },
        body: '{"email": "a',
      }),
    );
    expect(raw.status).toBeGreaterThanOrEqual(400);
    expect(raw.status).toBeLessThan(500);
    const form = await signInFromForm(
      new Request(`${APP_URL}/api/auth/sign-in-form`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: APP_URL },
        body: "email=%00&password=%00%00%00%00%00%00%00%00&next=%00",
      }),
    );
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/sign-in?error=wrong");
  });
});
