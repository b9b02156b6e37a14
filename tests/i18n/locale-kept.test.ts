import { afterEach, describe, expect, it } from "vitest";
import { APP_URL, authRequest, callerAs, uniqueIp } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { POST as acceptRoute } from "@/app/api/invitations/accept/route";
import { jobLocale } from "@/server/jobs/create";
import { getDb } from "@/server/db";

/**
 * The learner's language is kept from the first page they saw: an invitation accepted, or a
 * sign-up made, on a page in Chinese stores zh-CN, and the learner's jobs are in Chinese even when
 * they come back from an English browser.
 */
afterEach(() => {
  delete process.env.SIGNUP_MODE;
});
const PASSWORD = "a-learner-password-1";

const accept = (body: unknown, headers: Record<string, string>) =>
  acceptRoute(
    new Request(`${APP_URL}/api/invitations/accept`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP_URL, "x-forwarded-for": uniqueIp(), ...headers },
      body: JSON.stringify(body),
    }),
  );

describe("the learner's language is kept", () => {
  it("from the invitation page's language (its switcher's cookie, or the browser's)", async () => {
    const boss = (await createLearner({ role: "admin" })).user;
    const address = `${uid("invitee")}@example.test`;
    const sent = await callerAs(boss).admin.learners.invite({ email: address });
    const token = new URL(sent.link).pathname.split("/").at(-1)!;
    const res = await accept({ token, password: PASSWORD }, { "accept-language": "zh-CN,zh;q=0.9" });
    expect(res.status).toBe(200);
    const user = await getDb().user.findUniqueOrThrow({ where: { email: address } });
    expect(user.locale).toBe("zh-CN");

    // Back from an English browser: the learner's jobs are still in Chinese.
    expect(jobLocale({ requestLocale: "en" }, user.locale)).toBe("zh-CN");
  });

  it("from the sign-up page's cookie, over the browser's Accept-Language", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = `${uid("su")}@example.test`;
    const res = await authRequest("/sign-up/email", {
      body: { email, password: PASSWORD, name: "Li" },
      headers: { cookie: "locale=zh-CN", "accept-language": "en-US" },
    });
    expect(res.status).toBe(200);
    expect((await getDb().user.findUniqueOrThrow({ where: { email } })).locale).toBe("zh-CN");

    const english = `${uid("su")}@example.test`;
    expect(
      (
        await authRequest("/sign-up/email", {
          body: { email: english, password: PASSWORD, name: "Al" },
          headers: { "accept-language": "en-GB" },
        })
      ).status,
    ).toBe(200);
    expect((await getDb().user.findUniqueOrThrow({ where: { email: english } })).locale).toBe("en");
  });
});
