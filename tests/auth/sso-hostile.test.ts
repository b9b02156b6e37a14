import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setPassword } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { startOidcProvider, type OidcAccount } from "../helpers/oidc-provider";
import {
  finishCallback,
  reachCallback,
  signInWithSso,
  SSO_CLIENT,
  SSO_REDIRECT_URI,
  useProvider,
} from "../helpers/sso-flow";
import { acceptInvitation, createInvitation } from "@/server/account/invitations";
import { createAdmin } from "@/server/account/admin-create";
import { changePassword } from "@/server/account/password";
import { upsertLearner } from "@/server/platform/learners";
import { getDb } from "@/server/db";

/**
 * A hostile identity provider: the real `oidc-provider`, whose accounts say whatever an attacker
 * who controls (or signs up at) a provider can make it say — an unverified email, somebody
 * else's email, a new `sub` for a known email, the same `sub` from a second provider. Every case
 * ends as the linking table in docs/security.md says ("Single sign-on: who an identity may
 * become"), and a refused one leaves no user, no account and no session behind.
 */
const accounts: Record<string, OidcAccount> = {};
const second: Record<string, OidcAccount> = {};
let idp: Awaited<ReturnType<typeof startOidcProvider>>;
let otherIdp: Awaited<ReturnType<typeof startOidcProvider>>;

beforeAll(async () => {
  idp = await startOidcProvider({ ...SSO_CLIENT, redirectUri: SSO_REDIRECT_URI, accounts });
  otherIdp = await startOidcProvider({ ...SSO_CLIENT, redirectUri: SSO_REDIRECT_URI, accounts: second });
  useProvider(idp.issuer);
});
afterAll(async () => {
  await idp?.close();
  await otherIdp?.close();
});
afterEach(() => {
  delete process.env.SIGNUP_MODE;
  useProvider(idp.issuer);
});

const newEmail = () => `${uid("sso")}@school.test`.toLowerCase();
function identity(email: string, emailVerified: boolean | null = true, at = accounts) {
  const login = uid("sub");
  at[login] = { email, name: `Person ${login}`, emailVerified };
  return login;
}
const signIn = (login: string) => signInWithSso(idp.issuer, login);

/** A learner the platform API made (externalId), who never signed in. */
async function platformLearner(email = newEmail()) {
  const externalId = uid("ext");
  await upsertLearner(externalId, { name: "From the platform", email }, { type: "platform", id: "test-key" });
  return getDb().user.findUniqueOrThrow({ where: { email } });
}

/** What a refusal must leave: no session, the user's sign-in methods as they were, an audit row. */
async function expectRefused(
  done: Awaited<ReturnType<typeof signIn>>,
  code: string,
  reason: string,
  user: { id: string; accounts: string[] } | { email: string },
) {
  expect(done.session).toBeNull();
  expect(done.location).toMatch(new RegExp(`^/sign-in\\?error=${code}`));
  if ("email" in user) {
    expect(await getDb().user.count({ where: { email: user.email } })).toBe(0);
  } else {
    const rows = await getDb().account.findMany({ where: { userId: user.id }, select: { providerId: true } });
    expect(rows.map((r) => r.providerId).sort()).toEqual([...user.accounts].sort());
    expect(await getDb().session.count({ where: { userId: user.id } })).toBe(0);
  }
  const audit = await getDb().adminAuditLog.findFirst({
    where: { action: "sso.refused", scope: { path: ["reason"], equals: reason } },
    orderBy: { id: "desc" },
  });
  expect(audit).not.toBeNull();
  expect(JSON.stringify(audit!.scope)).not.toContain("@");
}

describe("the linking table: a new email", () => {
  it("verified, sign-up allowed: the account is made and signed in", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = newEmail();
    const done = await signIn(identity(email));
    expect(done.session?.user).toMatchObject({ email, role: "learner" });
  });

  for (const [claim, verified] of [
    ["email_verified: false", false],
    ["no email_verified claim", null],
  ] as const) {
    it(`${claim}: refused (SSO_EMAIL_NOT_VERIFIED) in open mode, nothing made`, async () => {
      process.env.SIGNUP_MODE = "open";
      const email = newEmail();
      const done = await signIn(identity(email, verified));
      await expectRefused(done, "SSO_EMAIL_NOT_VERIFIED", "email-not-verified", { email });
    });
  }

  it("unverified with a live invitation for the email: refused, the invitation stays unused", async () => {
    const email = newEmail();
    const sent = await createInvitation(email, null);
    const done = await signIn(identity(email, false));
    await expectRefused(done, "SSO_EMAIL_NOT_VERIFIED", "email-not-verified", { email });
    expect(await getDb().invitation.findUniqueOrThrow({ where: { id: sent.invitationId } })).toMatchObject({
      status: "pending",
      userId: null,
    });
  });

  it("pre-account hijacking: an unverified identity cannot make the account the real owner later gets", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = newEmail();
    const attacker = identity(email, false);
    await expectRefused(await signIn(attacker), "SSO_EMAIL_NOT_VERIFIED", "email-not-verified", { email });
    const owner = await signIn(identity(email));
    expect(owner.session?.user.email).toBe(email);
    const again = await signIn(attacker);
    expect(again.session).toBeNull();
    const user = await getDb().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(user.accounts).toHaveLength(1);
    expect(await getDb().session.count({ where: { userId: user.id } })).toBe(1);
  });
});

describe("the linking table: an existing account of the same email", () => {
  it("a platform learner who never signed in, verified: linked and signed in", async () => {
    process.env.SIGNUP_MODE = "closed";
    const learner = await platformLearner();
    const done = await signIn(identity(learner.email));
    expect(done.session?.user.id).toBe(learner.id);
  });

  it("a platform learner, unverified email: refused, not linked", async () => {
    const learner = await platformLearner();
    const done = await signIn(identity(learner.email, false));
    await expectRefused(done, "SSO_EMAIL_NOT_VERIFIED", "email-not-verified", { id: learner.id, accounts: [] });
  });

  for (const mode of ["open", "closed"] as const) {
    it(`an admin made by admin:create (password changed), SIGNUP_MODE=${mode}: refused, never a session`, async () => {
      process.env.SIGNUP_MODE = mode;
      const made = await createAdmin(newEmail());
      const keep = uid("sess");
      await changePassword(made.userId, keep, made.password, "a-new-admin-password-1");
      for (const verified of [true, false]) {
        const done = await signIn(identity(made.email, verified));
        await expectRefused(
          done,
          verified ? "ACCOUNT_NOT_LINKED" : "SSO_EMAIL_NOT_VERIFIED",
          verified ? "admin" : "email-not-verified",
          {
            id: made.userId,
            accounts: ["credential"],
          },
        );
      }
    });

    it(`an invited learner who set a password, SIGNUP_MODE=${mode}: refused`, async () => {
      const email = newEmail();
      const sent = await createInvitation(email, null);
      const accepted = await acceptInvitation({
        token: new URL(sent.link).pathname.split("/").pop(),
        password: "the-learners-own-password",
      });
      process.env.SIGNUP_MODE = mode;
      const done = await signIn(identity(email));
      await expectRefused(done, "ACCOUNT_NOT_LINKED", "has-password", {
        id: accepted.userId,
        accounts: ["credential"],
      });
    });
  }

  it("an account with a password (open sign-up): refused", async () => {
    const learner = await platformLearner();
    await setPassword(learner.id, "somebody-chose-this");
    const done = await signIn(identity(learner.email));
    await expectRefused(done, "ACCOUNT_NOT_LINKED", "has-password", { id: learner.id, accounts: ["credential"] });
  });

  it("an account made by accepting an invitation through single sign-on: a new identity is refused", async () => {
    const email = newEmail();
    await createInvitation(email, null);
    const first = await signIn(identity(email));
    expect(first.session?.user.email).toBe(email);
    await getDb().session.deleteMany({ where: { userId: first.session!.user.id } });
    const done = await signIn(identity(email));
    await expectRefused(done, "ACCOUNT_NOT_LINKED", "invited", { id: first.session!.user.id, accounts: ["oidc"] });
  });

  it("a changed sub for the same email: refused; the first identity still signs in", async () => {
    const learner = await platformLearner();
    const first = identity(learner.email);
    expect((await signIn(first)).session?.user.id).toBe(learner.id);
    await getDb().session.deleteMany({ where: { userId: learner.id } });
    const done = await signIn(identity(learner.email));
    await expectRefused(done, "ACCOUNT_NOT_LINKED", "linked-elsewhere", { id: learner.id, accounts: ["oidc"] });
    expect((await signIn(first)).session?.user.id).toBe(learner.id);
  });

  it("a learner the platform API did not make (no externalId, no sign-in method): refused", async () => {
    const { user } = await createLearner();
    const done = await signIn(identity(user.email));
    await expectRefused(done, "ACCOUNT_NOT_LINKED", "not-platform-learner", { id: user.id, accounts: [] });
  });

  it("a platform learner who already signed in another way (a session, no method left): refused", async () => {
    const learner = await platformLearner();
    await getDb().session.create({
      data: { id: uid("s"), token: uid("tok"), userId: learner.id, expiresAt: new Date(Date.now() + 60_000) },
    });
    const done = await signIn(identity(learner.email));
    expect(done.session).toBeNull();
    expect(done.location).toMatch(/^\/sign-in\?error=ACCOUNT_NOT_LINKED/);
    expect(await getDb().account.count({ where: { userId: learner.id } })).toBe(0);
    expect(await getDb().session.count({ where: { userId: learner.id } })).toBe(1);
  });

  it("two identities racing to join the same platform learner: exactly one links", async () => {
    const learner = await platformLearner();
    const [a, b] = [identity(learner.email), identity(learner.email)];
    const ready = [await reachCallback(idp.issuer, a), await reachCallback(idp.issuer, b)];
    const results = await Promise.all(ready.map((r) => finishCallback(r)));
    expect(results.filter((r) => r.session).length).toBe(1);
    expect(await getDb().account.count({ where: { userId: learner.id } })).toBe(1);
    expect(await getDb().session.count({ where: { userId: learner.id } })).toBe(1);
  });
});

describe("the linking table: a returning identity", () => {
  it("the same sub signs in to its own account even when its email claim now names someone else", async () => {
    process.env.SIGNUP_MODE = "open";
    const login = identity(newEmail());
    const mine = (await signIn(login)).session!.user.id;
    const victim = await platformLearner();
    accounts[login] = { ...accounts[login]!, email: victim.email };
    const done = await signIn(login);
    expect(done.session?.user.id).toBe(mine);
    expect(await getDb().account.count({ where: { userId: victim.id } })).toBe(0);
    expect(await getDb().session.count({ where: { userId: victim.id } })).toBe(0);
  });

  it("a second provider's identity with the same sub (another issuer): refused, with either email", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = newEmail();
    const login = identity(email);
    const owner = (await signIn(login)).session!.user.id;
    await getDb().session.deleteMany({ where: { userId: owner } });
    useProvider(otherIdp.issuer);
    for (const claimed of [email, newEmail()]) {
      second[login] = { email: claimed, name: "Impostor", emailVerified: true };
      const done = await signInWithSso(otherIdp.issuer, login);
      await expectRefused(done, "ACCOUNT_NOT_LINKED", "other-issuer", { id: owner, accounts: ["oidc"] });
    }
  });

  it("a returning identity whose stored ID token is missing or unreadable: refused (fails closed)", async () => {
    process.env.SIGNUP_MODE = "open";
    const login = identity(newEmail());
    const owner = (await signIn(login)).session!.user.id;
    const link = await getDb().account.findFirstOrThrow({ where: { userId: owner, providerId: "oidc" } });
    for (const stored of [null, "not-a-token", "a.bm90IGpzb24.c"]) {
      await getDb().session.deleteMany({ where: { userId: owner } });
      await getDb().account.update({ where: { id: link.id }, data: { idToken: stored } });
      const done = await signIn(login);
      await expectRefused(done, "ACCOUNT_NOT_LINKED", "unknown-issuer", { id: owner, accounts: ["oidc"] });
    }
    await getDb().account.update({ where: { id: link.id }, data: { idToken: link.idToken } });
    expect((await signIn(login)).session?.user.id).toBe(owner);
  });

  it("a second provider's new identity for an existing account's email: refused", async () => {
    process.env.SIGNUP_MODE = "open";
    const email = newEmail();
    const owner = (await signIn(identity(email))).session!.user.id;
    await getDb().session.deleteMany({ where: { userId: owner } });
    useProvider(otherIdp.issuer);
    const done = await signInWithSso(otherIdp.issuer, identity(email, true, second));
    await expectRefused(done, "ACCOUNT_NOT_LINKED", "linked-elsewhere", { id: owner, accounts: ["oidc"] });
  });
});

describe("the refusal reaches the person in their language", () => {
  it("the sign-in page knows both codes and words them in zh-CN and en", async () => {
    const { isSignInFormError } = await import("@/server/auth/form-sign-in");
    const en = (await import("@/messages/en.json")).default.signIn.errors;
    const zh = (await import("@/messages/zh-CN.json")).default.signIn.errors;
    for (const code of ["SSO_EMAIL_NOT_VERIFIED", "ACCOUNT_NOT_LINKED"] as const) {
      expect(isSignInFormError(code)).toBe(true);
      expect(en[code]).toMatch(/\w/);
      expect(zh[code]).toMatch(/[\u4e00-\u9fff]/);
      expect(zh[code]).not.toBe(en[code]);
    }
  });
});
