import { afterEach, describe, expect, it } from "vitest";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";
import { APP_URL, authRequest, callerAs, setPassword, uniqueIp } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { POST as acceptRoute } from "@/app/api/invitations/accept/route";
import { createInvitation, INVITATION_DAYS, lookupInvitation, revokeInvitation } from "@/server/account/invitations";
import { getSession } from "@/server/auth/session";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { platform, serviceKey } from "../helpers/platform-api";

/** Invitations (docs/contract.md#learners-and-their-data), the one way into an `invite` instance. */
const email = () => `${uid("invitee")}@example.test`;
const tokenOf = (link: string) => new URL(link).pathname.split("/").at(-1)!;
const PASSWORD = "a-learner-password-1";

export function accept(body: unknown, init: { form?: boolean; headers?: Record<string, string> } = {}) {
  const form = init.form && body && typeof body === "object";
  return acceptRoute(
    new Request(`${APP_URL}/api/invitations/accept`, {
      method: "POST",
      headers: {
        "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
        origin: APP_URL,
        "x-forwarded-for": uniqueIp(),
        ...init.headers,
      },
      body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
    }),
  );
}

async function admin() {
  return (await createLearner({ role: "admin" })).user;
}

afterEach(() => {
  resetClock();
  delete process.env.SIGNUP_MODE;
  delete process.env.SIGNUP_EMAIL_DOMAINS;
});

describe("invitations", () => {
  it("an admin invites; the link sets a password once and signs the new learner in; all audited, token hashed", async () => {
    const boss = await admin();
    const address = email();
    const sent = await callerAs(boss).admin.learners.invite({ email: ` ${address.toUpperCase()} ` });
    expect(sent.email).toBe(address);
    expect(sent.link).toMatch(new RegExp(`^${APP_URL}/invite/[A-Za-z0-9_-]{43}$`));
    expect(new Date(sent.expiresAt).getTime() - Date.now()).toBeGreaterThan((INVITATION_DAYS * 86_400 - 60) * 1000);
    const token = tokenOf(sent.link);
    const row = await getDb().invitation.findUniqueOrThrow({ where: { email: address } });
    expect(JSON.stringify(row)).not.toContain(token);
    expect(await lookupInvitation(token)).toEqual({ state: "valid", email: address });

    const res = await accept({ token, password: PASSWORD, name: "Ada\u0007 Lovelace" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: true, signedIn: true, redirect: "/" });
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.includes("session_token="))!
      .split(";")[0]!;
    const session = await getSession(new Headers({ cookie }));
    expect(session?.user).toMatchObject({ email: address, role: "learner", name: "Ada Lovelace" });
    const user = await getDb().user.findUniqueOrThrow({ where: { email: address } });
    expect(user).toMatchObject({ emailVerified: true, role: "learner", mustChangePassword: false });
    expect(await getDb().invitation.findUniqueOrThrow({ where: { email: address } })).toMatchObject({
      status: "accepted",
      userId: user.id,
    });
    expect(await lookupInvitation(token)).toEqual({ state: "used", email: null });

    const again = await accept({ token, password: "another-long-password" });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("INVITATION_USED");

    const audits = await getDb().adminAuditLog.findMany({
      where: { scope: { path: ["invitationId"], equals: row.id } },
      orderBy: { id: "asc" },
    });
    expect(audits.map((a) => [a.actorId, a.action])).toEqual([
      [boss.id, "invitation.create"],
      [user.id, "invitation.accept"],
    ]);
    // The audit log names no email: erasure of the learner leaves nothing personal there.
    expect(JSON.stringify(audits.map((a) => a.scope))).not.toContain(address);

    const list = await callerAs(boss).admin.learners.list({ search: address });
    expect(list.items).toEqual([
      expect.objectContaining({ userId: user.id, email: address, invitation: "accepted", signIn: ["password"] }),
    ]);
  });

  it("the same invitation accepted twice at once: exactly one account and password, the other a 409", async () => {
    const address = email();
    const token = tokenOf((await createInvitation(address, null)).link);
    const answers = await Promise.all([
      accept({ token, password: "first-racing-password" }),
      accept({ token, password: "second-racing-password" }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = answers.find((r) => r.status === 409)!;
    expect((await loser.json()).error.code).toBe("INVITATION_USED");
    const users = await getDb().user.findMany({ where: { email: address }, include: { accounts: true } });
    expect(users).toHaveLength(1);
    expect(users[0]!.accounts).toHaveLength(1);
  });

  it("expired, re-sent and revoked links are refused with a code and change nothing", async () => {
    const boss = await admin();
    const caller = callerAs(boss);
    const address = email();
    const first = await caller.admin.learners.invite({ email: address });
    const resent = await caller.admin.learners.resend({ invitationId: first.invitationId });
    expect(resent.invitationId).toBe(first.invitationId);
    expect(resent.link).not.toBe(first.link);
    const old = await accept({ token: tokenOf(first.link), password: PASSWORD });
    expect(old.status).toBe(404);
    expect((await old.json()).error.code).toBe("INVITATION_NOT_FOUND");

    advanceClock(INVITATION_DAYS * 86_400_000 + 1000);
    expect((await lookupInvitation(tokenOf(resent.link))).state).toBe("expired");
    const late = await accept({ token: tokenOf(resent.link), password: PASSWORD });
    expect(late.status).toBe(410);
    expect((await late.json()).error.code).toBe("INVITATION_EXPIRED");
    const listed = await caller.admin.learners.list({ search: address });
    expect(listed.items[0]).toMatchObject({ userId: null, invitation: "expired" });
    resetClock();

    const third = await caller.admin.learners.resend({ invitationId: first.invitationId });
    await caller.admin.learners.revoke({ invitationId: first.invitationId });
    const revoked = await accept({ token: tokenOf(third.link), password: PASSWORD });
    expect(revoked.status).toBe(410);
    expect((await revoked.json()).error.code).toBe("INVITATION_REVOKED");
    expect(await getDb().user.count({ where: { email: address } })).toBe(0);
    const actions = await getDb().adminAuditLog.findMany({
      where: { scope: { path: ["invitationId"], equals: first.invitationId } },
      orderBy: { id: "asc" },
    });
    expect(actions.map((a) => a.action)).toEqual([
      "invitation.create",
      "invitation.resend",
      "invitation.resend",
      "invitation.revoke",
    ]);
  });

  it("a weak or mismatched password is a 400 WEAK_PASSWORD and leaves the invitation usable", async () => {
    const address = email();
    const token = tokenOf((await createInvitation(address, null)).link);
    for (const body of [
      { token, password: "short" },
      { token, password: " ".repeat(20) },
      { token, password: "x".repeat(129) },
      { token, password: PASSWORD, repeat: "something-else-entirely" },
    ]) {
      const res = await accept(body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("WEAK_PASSWORD");
    }
    expect((await lookupInvitation(token)).state).toBe("valid");
    expect(await getDb().user.count({ where: { email: address } })).toBe(0);
  });

  it("a pending invitation's email is taken: a service key's PUT with it is 409 EMAIL_IN_USE, on create and on update", async () => {
    const api = platform(await serviceKey());
    const address = email().toLowerCase();
    const token = tokenOf((await createInvitation(address, null)).link);
    const ext = uid("ext");
    const created = await api.putLearner(ext, { name: "Key's learner", email: address });
    expect([created.status, created.body.error?.code]).toEqual([409, "EMAIL_IN_USE"]);
    expect(await getDb().user.count({ where: { email: address } })).toBe(0);
    expect((await api.putLearner(ext, { name: "Key's learner" })).status).toBe(201);
    const moved = await api.putLearner(ext, { name: "Key's learner", email: address });
    expect([moved.status, moved.body.error?.code]).toEqual([409, "EMAIL_IN_USE"]);
    // She accepts into an account of her own, which the key cannot reach.
    expect((await accept({ token, password: PASSWORD })).status).toBe(200);
    const hers = await getDb().user.findUniqueOrThrow({ where: { email: address } });
    expect(hers.externalId).toBeNull();
    expect((await api.exportLearner(ext)).body.account.email).not.toBe(address);
  });

  it("a revoked invitation frees the email for the platform; the key's account can then not be invited", async () => {
    const api = platform(await serviceKey());
    const address = email().toLowerCase();
    const sent = await createInvitation(address, null);
    await revokeInvitation(sent.invitationId, (await admin()).id);
    const ext = uid("ext");
    expect((await api.putLearner(ext, { name: "Key's learner", email: address })).status).toBe(201);
    await expect(createInvitation(address, null)).rejects.toMatchObject({ code: "ACCOUNT_EXISTS" });
  });

  it("accepting never completes an account a platform made, even one made after the invitation was sent", async () => {
    const api = platform(await serviceKey());
    const address = email().toLowerCase();
    const token = tokenOf((await createInvitation(address, null)).link);
    // The account appears between the invitation and its acceptance (a PUT that raced the invitation).
    const ext = uid("ext");
    await getDb().user.create({ data: { email: address, name: "Key's learner", externalId: ext, role: "learner" } });
    const res = await accept({ token, password: PASSWORD });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("ACCOUNT_EXISTS");
    const user = await getDb().user.findUniqueOrThrow({ where: { email: address }, include: { accounts: true } });
    expect(user.accounts).toEqual([]);
    expect((await lookupInvitation(token)).state).toBe("valid");
    expect((await api.exportLearner(ext)).status).toBe(200);
  });

  it("an email with a password account is refused; one without a password that no platform made (SSO) is completed", async () => {
    const withPassword = await createLearner();
    await setPassword(withPassword.user.id, "already-has-a-password");
    await expect(createInvitation(withPassword.user.email, null)).rejects.toMatchObject({ code: "ACCOUNT_EXISTS" });
    expect(await getDb().invitation.count({ where: { email: withPassword.user.email } })).toBe(0);

    const apiMade = await createLearner(); // no externalId: as single sign-on makes them
    const token = tokenOf((await createInvitation(apiMade.user.email, null)).link);
    const res = await accept({ token, password: PASSWORD });
    expect(res.status).toBe(200);
    const accounts = await getDb().account.findMany({ where: { userId: apiMade.user.id } });
    expect(accounts.map((a) => a.providerId)).toEqual(["credential"]);
    expect(await getDb().user.count({ where: { email: apiMade.user.email } })).toBe(1);
  });

  it("the no-JavaScript form: 303 to the learner page signed in, or back to the page with the error code", async () => {
    const token = tokenOf((await createInvitation(email(), null)).link);
    const bad = await accept({ token, password: "short", repeat: "short" }, { form: true });
    expect(bad.status).toBe(303);
    expect(bad.headers.get("location")).toBe(`/invite/${token}?error=WEAK_PASSWORD`);
    const ok = await accept({ token, password: PASSWORD, repeat: PASSWORD }, { form: true });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/");
    expect(ok.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(true);
    const cross = await accept({ token, password: PASSWORD }, { headers: { origin: "https://evil.example" } });
    expect(cross.status).toBe(403);
  });

  it("SIGNUP_MODE=closed refuses new invitations and their acceptance; existing accounts still sign in", async () => {
    const address = email();
    const token = tokenOf((await createInvitation(address, null)).link);
    process.env.SIGNUP_MODE = "closed";
    await expect(createInvitation(email(), null)).rejects.toMatchObject({ code: "SIGN_UP_CLOSED" });
    const res = await accept({ token, password: PASSWORD });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("SIGN_UP_CLOSED");
    expect((await lookupInvitation(token)).state).toBe("valid");
    const old = await createLearner();
    await setPassword(old.user.id, "an-old-account-password");
    expect(
      (await authRequest("/sign-in/email", { body: { email: old.user.email, password: "an-old-account-password" } }))
        .status,
    ).toBe(200);
  });

  it("a learner cannot invite, and the list shows only learners and pending invitations, paged", async () => {
    const learner = (await createLearner()).user;
    await expect(callerAs(learner).admin.learners.invite({ email: email() })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const boss = await admin();
    const tag = uid("page");
    for (let i = 0; i < 3; i++) await createInvitation(`${tag}-${i}@example.test`, null);
    const first = await callerAs(boss).admin.learners.list({ search: tag, page: 1, pageSize: 2 });
    const second = await callerAs(boss).admin.learners.list({ search: tag, page: 2, pageSize: 2 });
    expect(first.total).toBe(3);
    expect(first.items).toHaveLength(2);
    expect(second.items).toHaveLength(1);
    expect([...first.items, ...second.items].every((i) => i.invitation === "pending" && i.userId === null)).toBe(true);
    const admins = await callerAs(boss).admin.learners.list({ search: boss.email });
    expect(admins.total).toBe(0);
    // LIKE wildcards in a search are literal.
    expect((await callerAs(boss).admin.learners.list({ search: "%" })).total).toBe(0);
  });

  it(
    "npm run learner:invite prints the link on its last line; a bad email exits non-zero",
    async () => {
      const address = email();
      const run = (args: string[]) => runScript("scripts/learner-invite.ts", args);
      const ok = await run([address]);
      expect(ok.status).toBe(0);
      const link = ok.stdout.trim().split("\n").at(-1)!;
      expect(link).toMatch(/^http:\/\/localhost:\d+\/invite\/[A-Za-z0-9_-]{43}$/);
      expect((await run([])).status).toBe(64);
      const bad = await run(["nope"]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain("not an email address");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
