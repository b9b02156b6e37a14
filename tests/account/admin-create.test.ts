import { describe, expect, it } from "vitest";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";
import { callerFromHeaders, signedInCookie, signIn, setPassword } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { createAdmin, CLI_ACTOR } from "@/server/account/admin-create";
import { pageRedirect } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { getDb } from "@/server/db";

/** The first admin without a published password: `npm run admin:create -- <email>`. */
const email = () => `${uid("admin")}@example.test`;
const audits = (userId: string) =>
  getDb().adminAuditLog.findMany({ where: { scope: { path: ["userId"], equals: userId } }, orderBy: { id: "asc" } });

describe("admin:create", () => {
  it("creates an admin whose one-time password opens only the password change, then everything", async () => {
    const address = email();
    const admin = await createAdmin(`  ${address.toUpperCase()} `);
    expect(admin).toMatchObject({ email: address, action: "admin.create" });
    expect(admin.password.length).toBeGreaterThanOrEqual(24);
    const user = await getDb().user.findUniqueOrThrow({ where: { email: address } });
    expect(user).toMatchObject({ role: "admin", mustChangePassword: true });
    const stored = await getDb().account.findFirstOrThrow({ where: { userId: user.id } });
    expect(stored.password).not.toContain(admin.password);

    const cookie = await signedInCookie(address, admin.password);
    const session = await getSession(new Headers({ cookie }));
    expect(session?.user).toMatchObject({ role: "admin", mustChangePassword: true });
    expect(pageRedirect(session, "admin", "/admin")).toBe("/account/password?next=%2Fadmin");

    const caller = await callerFromHeaders({ cookie });
    await expect(caller.admin.runtimeKeys.list()).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: /one-time password/,
    });
    await expect(caller.jobs.list({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await caller.me.get())?.user.mustChangePassword).toBe(true);
    await expect(
      caller.account.changePassword({ currentPassword: "wrong-password", newPassword: "a-new-long-password" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      caller.account.changePassword({ currentPassword: admin.password, newPassword: "short" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      caller.account.changePassword({ currentPassword: admin.password, newPassword: admin.password }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await getDb().user.findUniqueOrThrow({ where: { id: user.id } })).mustChangePassword).toBe(true);

    expect(
      await caller.account.changePassword({ currentPassword: admin.password, newPassword: "my-own-long-password" }),
    ).toEqual({ changed: true });
    const after = await callerFromHeaders({ cookie });
    expect(await after.admin.runtimeKeys.list()).toHaveProperty("items");
    expect(pageRedirect(await getSession(new Headers({ cookie })), "admin", "/admin")).toBeNull();
    // The one-time password is spent; the new one signs in.
    expect((await signIn(address, admin.password)).status).toBe(401);
    expect((await signIn(address, "my-own-long-password")).status).toBe(200);
    expect((await audits(user.id)).map((a) => [a.actorId, a.action])).toEqual([
      [CLI_ACTOR, "admin.create"],
      [user.id, "account.change_password"],
    ]);
  });

  it("promotes an existing learner, replaces their password and ends their sessions", async () => {
    const learner = await createLearner();
    await setPassword(learner.user.id, "learner-old-password");
    const cookie = await signedInCookie(learner.user.email, "learner-old-password");
    const admin = await createAdmin(learner.user.email);
    expect(admin.action).toBe("admin.promote");
    expect(await getSession(new Headers({ cookie }))).toBeNull();
    expect((await signIn(learner.user.email, "learner-old-password")).status).toBe(401);
    expect((await signIn(learner.user.email, admin.password)).status).toBe(200);
    expect(await getDb().user.findUniqueOrThrow({ where: { id: learner.user.id } })).toMatchObject({
      role: "admin",
      mustChangePassword: true,
    });
    expect((await audits(learner.user.id)).map((a) => a.action)).toEqual(["admin.promote"]);
  });

  it("refuses a malformed email and writes nothing", async () => {
    const before = await getDb().user.count();
    for (const bad of ["", "not-an-email", "a@b", "x\u0000@example.test", `${"a".repeat(300)}@example.test`]) {
      await expect(createAdmin(bad)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    }
    expect(await getDb().user.count()).toBe(before);
  });

  it(
    "the command prints the one-time password once and exits 0; bad usage exits non-zero",
    async () => {
      const address = email();
      const run = (args: string[]) => runScript("scripts/admin-create.ts", args);
      const ok = await run([address]);
      expect(ok.status).toBe(0);
      const password = ok.stdout.trim().split("\n").at(-1)!;
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(ok.stdout).toContain(`Admin ${address} created`);
      expect((await run([])).status).toBe(64);
      const bad = await run(["nope"]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain("not an email address");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
