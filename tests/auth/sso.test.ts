import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { APP_URL, authRequest, setPassword } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { startOidcProvider, type OidcAccount } from "../helpers/oidc-provider";
import { signInWithSso as signInFlow, SSO_CLIENT, SSO_REDIRECT_URI, useProvider } from "../helpers/sso-flow";
import { handleAuthRequest } from "@/server/auth/handler";
import { createInvitation } from "@/server/account/invitations";
import { getDb } from "@/server/db";
import { upsertLearner } from "@/server/platform/learners";

/**
 * Single sign-on against a real OpenID Connect provider (oidc-provider on a loopback port): the
 * app's /api/auth/sign-in/social → the provider's authorization, login and consent pages → the
 * app's /api/auth/callback/oidc with the code, exchanged over HTTP, the ID token checked against
 * the provider's JWKS. Nothing of either side is mocked.
 */
const accounts: Record<string, OidcAccount> = {};
let provider: Awaited<ReturnType<typeof startOidcProvider>>;

beforeAll(async () => {
  provider = await startOidcProvider({ ...SSO_CLIENT, redirectUri: SSO_REDIRECT_URI, accounts });
  useProvider(provider.issuer);
});
afterAll(async () => provider?.close());
afterEach(() => {
  delete process.env.SIGNUP_MODE;
  delete process.env.SIGNUP_EMAIL_DOMAINS;
});

function person(email = `${uid("sso")}@school.test`) {
  const login = uid("login");
  accounts[login] = { email, name: `Person ${login}` };
  return { login, email };
}

const signInWithSso = (login: string) => signInFlow(provider.issuer, login);

describe("single sign-on with an OpenID Connect provider", () => {
  it("the first sign-in (SIGNUP_MODE=open) creates the learner, the next finds it", async () => {
    process.env.SIGNUP_MODE = "open";
    const { login, email } = person();
    const first = await signInWithSso(login);
    expect(first.status).toBe(302);
    expect(first.location).toBe("/");
    expect(first.session?.user).toMatchObject({ email, role: "learner" });
    const user = await getDb().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(user.accounts.map((a) => a.providerId)).toEqual(["oidc"]);
    expect(user.accounts[0]!.password).toBeNull();

    const second = await signInWithSso(login);
    expect(second.session?.user.id).toBe(user.id);
    expect(await getDb().user.count({ where: { email } })).toBe(1);
  });

  it("links to the learner the platform API made with the same email (no password), in any SIGNUP_MODE", async () => {
    process.env.SIGNUP_MODE = "closed";
    const externalId = uid("ext");
    const email = `${externalId}@school.test`.toLowerCase();
    await upsertLearner(externalId, { name: "From the platform", email }, { type: "platform", id: "test-key" });
    const existing = await getDb().user.findUniqueOrThrow({ where: { email } });
    const { login } = person(existing.email);
    const done = await signInWithSso(login);
    expect(done.location).toBe("/");
    expect(done.session?.user.id).toBe(existing.id);
    const providers = await getDb().account.findMany({ where: { userId: existing.id }, select: { providerId: true } });
    expect(providers).toEqual([{ providerId: "oidc" }]);
  });

  it("SIGNUP_MODE=invite (default): a new email needs a live invitation, which the sign-in uses up", async () => {
    const stranger = person();
    const refused = await signInWithSso(stranger.login);
    expect(refused.session).toBeNull();
    expect(refused.location).toMatch(/^\/sign-in\?error=SIGN_UP_CLOSED/);
    expect(await getDb().user.count({ where: { email: stranger.email } })).toBe(0);

    const invited = person();
    const sent = await createInvitation(invited.email, null);
    const done = await signInWithSso(invited.login);
    expect(done.session?.user.email).toBe(invited.email);
    expect(await getDb().invitation.findUniqueOrThrow({ where: { id: sent.invitationId } })).toMatchObject({
      status: "accepted",
      userId: done.session!.user.id,
    });
  });

  it("SIGNUP_EMAIL_DOMAINS limits accounts SSO may create; closed creates none", async () => {
    process.env.SIGNUP_MODE = "open";
    process.env.SIGNUP_EMAIL_DOMAINS = "example.org";
    const outsider = person();
    const refused = await signInWithSso(outsider.login);
    expect(refused.location).toMatch(/^\/sign-in\?error=EMAIL_DOMAIN_NOT_ALLOWED/);
    process.env.SIGNUP_EMAIL_DOMAINS = "school.test";
    process.env.SIGNUP_MODE = "closed";
    expect((await signInWithSso(outsider.login)).location).toMatch(/^\/sign-in\?error=SIGN_UP_CLOSED/);
    expect(await getDb().user.count({ where: { email: outsider.email } })).toBe(0);
  });

  it("never joins an account whose password nobody proved the email of (an open sign-up)", async () => {
    process.env.SIGNUP_MODE = "open";
    const squatter = await createLearner();
    await setPassword(squatter.user.id, "the-squatters-password");
    const { login } = person(squatter.user.email);
    const done = await signInWithSso(login);
    expect(done.session).toBeNull();
    expect(done.location).toMatch(/^\/sign-in\?error=ACCOUNT_NOT_LINKED/);
    expect(await getDb().account.count({ where: { userId: squatter.user.id, providerId: "oidc" } })).toBe(0);
  });

  it("hostile callback parameters answer a redirect with an error, never a 500, and write nothing", async () => {
    const users = await getDb().user.count();
    for (const query of [
      "code=x&state=__proto__",
      "code=toString&state=constructor",
      "code=%00&state=%00",
      "code=%ED%A0%80&state=%ED%A0%80",
      `code=${"a".repeat(5000)}&state=${"b".repeat(5000)}`,
      "error=access_denied&state=x",
      "state[]=1&state[__proto__]=2&code[]=x",
    ]) {
      const res = await handleAuthRequest(new Request(`${APP_URL}/api/auth/callback/oidc?${query}`));
      expect([query, res.status]).toEqual([query, expect.any(Number)]);
      expect(res.status, query).toBeLessThan(500);
      expect(res.status, query).toBeGreaterThanOrEqual(300);
    }
    const bad = await authRequest("/sign-in/social", { body: { provider: "__proto__", callbackURL: "/" } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    expect(await getDb().user.count()).toBe(users);
  });
});
