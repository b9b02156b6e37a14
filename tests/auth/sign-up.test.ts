import { afterEach, describe, expect, it } from "vitest";
import { APP_URL, authRequest, sessionCookie, uniqueIp } from "../helpers/auth";
import { signUpFromForm } from "@/server/auth/form-sign-up";
import { signUpFormError } from "@/server/auth/sign-up-errors";
import { uid } from "../helpers/factories";
import { getSession } from "@/server/auth/session";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { getDb } from "@/server/db";

/** SIGNUP_MODE=open: better-auth's sign-up, under the app's password policy and SIGNUP_EMAIL_DOMAINS. */
afterEach(() => {
  delete process.env.SIGNUP_MODE;
  delete process.env.SIGNUP_EMAIL_DOMAINS;
});
const signUp = (email: string, password = "a-long-enough-password") =>
  authRequest("/sign-up/email", { body: { email, password, name: "New Learner" } });

describe("open sign-up", () => {
  it("makes a learner (never an admin) and signs them in", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = `${uid("su")}@example.test`;
    const res = await authRequest("/sign-up/email", {
      body: { email, password: "a-long-enough-password", name: "New", role: "admin", mustChangePassword: true },
    });
    // A body naming a role or the password flag is either refused or ignored: never an admin.
    const ok = res.status === 200 ? res : await signUp(email);
    expect(ok.status).toBe(200);
    expect(await getDb().user.findUniqueOrThrow({ where: { email } })).toMatchObject({
      role: "learner",
      mustChangePassword: false,
    });
    expect(JSON.stringify(await ok.json())).not.toMatch(/"token"/);
    const session = await getSession(new Headers({ cookie: sessionCookie(ok) }));
    expect(session?.user).toMatchObject({ email, role: "learner" });
    expect((await signUp(email)).status).toBeGreaterThanOrEqual(400);
    expect(await getDb().user.count({ where: { email } })).toBe(1);
  });

  it(`refuses a password under ${MIN_PASSWORD_LENGTH} characters (the app's rule, not better-auth's 8)`, async () => {
    process.env.SIGNUP_MODE = "open";
    const email = `${uid("su")}@example.test`;
    const res = await signUp(email, "x".repeat(MIN_PASSWORD_LENGTH - 1));
    expect(res.status).toBe(400);
    expect(await getDb().user.count({ where: { email } })).toBe(0);
  });

  it("SIGNUP_EMAIL_DOMAINS: other domains get 403 EMAIL_DOMAIN_NOT_ALLOWED", async () => {
    process.env.SIGNUP_MODE = "open";
    process.env.SIGNUP_EMAIL_DOMAINS = "school.test, @uni.test";
    const outside = await signUp(`${uid("su")}@example.test`);
    expect(outside.status).toBe(403);
    expect((await outside.json()).code).toBe("EMAIL_DOMAIN_NOT_ALLOWED");
    expect((await signUp(`${uid("su")}@UNI.test`)).status).toBe(200);
  });
});

describe("the open sign-up form's POST target (works without JavaScript)", () => {
  const postForm = (fields: Record<string, string>, contentType = "application/x-www-form-urlencoded") =>
    signUpFromForm(
      new Request(`${APP_URL}/api/auth/sign-up-form`, {
        method: "POST",
        headers: {
          "content-type": contentType,
          origin: APP_URL,
          "sec-fetch-site": "same-origin",
          "sec-fetch-mode": "navigate",
          "x-forwarded-for": uniqueIp(),
        },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  const fields = (email: string, password = "a-long-enough-password") => ({ name: "Form Learner", email, password });

  it("makes a learner: 303 to the learner page with the session cookie", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = `${uid("suf")}@example.test`;
    const res = await postForm(fields(email));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cookie = res.headers.getSetCookie().find((c) => c.includes("session_token="));
    expect(cookie).toMatch(/HttpOnly/i);
    const user = await getDb().user.findUniqueOrThrow({ where: { email } });
    expect(user).toMatchObject({ role: "learner", name: "Form Learner" });
    expect(await getDb().session.count({ where: { userId: user.id } })).toBe(1);
  });

  it.each([
    ["a taken email", "open", undefined, "ACCOUNT_EXISTS"],
    ["a short password", "open", "short", "WEAK_PASSWORD"],
    ["invitation-only", "invite", undefined, "SIGN_UP_CLOSED"],
    ["closed", "closed", undefined, "SIGN_UP_CLOSED"],
  ])(
    "%s: 303 back to the form with the reason, no credentials in the URL, nothing written",
    async (_, mode, password, code) => {
      process.env.SIGNUP_MODE = mode;
      const email = `${uid("suf")}@example.test`;
      const taken = code === "ACCOUNT_EXISTS";
      if (taken) await getDb().user.create({ data: { email, name: "Already" } });
      const res = await postForm(fields(email, password));
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/sign-in?signup=${code}`);
      expect(res.headers.getSetCookie().join()).not.toContain("session_token=");
      expect(await getDb().user.count({ where: { email } })).toBe(taken ? 1 : 0);
      expect(await getDb().account.count({ where: { user: { email } } })).toBe(0);
    },
  );

  it("SIGNUP_EMAIL_DOMAINS: another domain comes back EMAIL_DOMAIN_NOT_ALLOWED", async () => {
    process.env.SIGNUP_MODE = "open";
    process.env.SIGNUP_EMAIL_DOMAINS = "school.test";
    const email = `${uid("suf")}@example.test`;
    const res = await postForm(fields(email));
    expect(res.headers.get("location")).toBe("/sign-in?signup=EMAIL_DOMAIN_NOT_ALLOWED");
    expect(await getDb().user.count({ where: { email } })).toBe(0);
  });

  it("a body that is not a form comes back failed; a cross-site post is refused; nothing written", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = `${uid("suf")}@example.test`;
    const notForm = await postForm(fields(email), "application/json");
    expect(notForm.headers.get("location")).toBe("/sign-in?signup=failed");
    const crossSite = await signUpFromForm(
      new Request(`${APP_URL}/api/auth/sign-up-form`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://evil.example",
          "sec-fetch-site": "cross-site",
          "x-forwarded-for": uniqueIp(),
        },
        body: new URLSearchParams(fields(email)).toString(),
      }),
    );
    expect(crossSite.status).toBe(303);
    expect(crossSite.headers.get("location")).toBe("/sign-in?signup=failed");
    expect(await getDb().user.count({ where: { email } })).toBe(0);
  });

  it("every better-auth refusal maps to a code the page can word", () => {
    expect(signUpFormError(400, "PASSWORD_TOO_LONG")).toBe("WEAK_PASSWORD");
    expect(signUpFormError(400, "INVALID_EMAIL")).toBe("INVALID_EMAIL");
    expect(signUpFormError(422, "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")).toBe("ACCOUNT_EXISTS");
    expect(signUpFormError(429, "ANYTHING")).toBe("locked");
    expect(signUpFormError(403, "__proto__")).toBe("failed");
    expect(signUpFormError(500, undefined)).toBe("failed");
  });
});
