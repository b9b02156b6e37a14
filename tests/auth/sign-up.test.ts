import { afterEach, describe, expect, it } from "vitest";
import { authRequest, sessionCookie } from "../helpers/auth";
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
