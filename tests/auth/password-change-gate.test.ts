import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authRequest, callerFromHeaders, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { GET as jobEvents } from "@/app/api/jobs/events/route";
import { createAdmin } from "@/server/account/admin-create";
import { pageRedirect } from "@/server/auth/page-guards";
import { getSession } from "@/server/auth/session";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/password-policy";
import { getDb } from "@/server/db";

/** A one-time password opens only the password change, at every door; one password rule everywhere. */
async function oneTimeAdmin() {
  const email = `${uid("admin")}@example.test`;
  const admin = await createAdmin(email);
  return { email, password: admin.password, cookie: await signedInCookie(email, admin.password) };
}

function files(dir: string, name: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full, name) : e.name === name ? [full] : [];
  });
}

describe("the password-change gate covers every door", () => {
  it("the live job stream (SSE) answers 403 PASSWORD_CHANGE_REQUIRED, not every learner's jobs", async () => {
    const { cookie } = await oneTimeAdmin();
    const res = await jobEvents(new Request("http://localhost:3000/api/jobs/events", { headers: { cookie } }));
    const status = res.status;
    // Today's hole answered 200 with an endless stream: read only what a refusal would hold.
    if (status !== 403) await res.body?.cancel();
    expect(status).toBe(403);
    expect((await res.json()).error.code).toBe("PASSWORD_CHANGE_REQUIRED");
  });

  it("tRPC refuses too, and the page guard sends every page to the password change", async () => {
    const { cookie } = await oneTimeAdmin();
    const caller = await callerFromHeaders({ cookie });
    await expect(caller.admin.learners.list({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    const session = await getSession(new Headers({ cookie }));
    expect(pageRedirect(session, "learner", "/")).toBe("/account/password?next=%2F");
    expect(pageRedirect(session, "admin", "/admin/learners")).toMatch(/^\/account\/password/);
  });

  it("every route handler that reads a session goes through the one gate, requireRouteSession", () => {
    const readers = files("app", "route.ts").filter((f) =>
      /getSession|requireRouteSession|session/i.test(fs.readFileSync(f, "utf8")),
    );
    // The live stream, both exports and the material upload, at least.
    expect(readers.length).toBeGreaterThanOrEqual(4);
    // The doors before a session (better-auth's own routes, the sign-in form, single sign-on's
    // start) and the trpc adapter (its procedure ladder checks the same) are the only others.
    const ownDoors = /app\/api\/(auth|trpc)\//;
    for (const file of readers.filter((f) => !ownDoors.test(f)))
      expect([file, fs.readFileSync(file, "utf8")]).toEqual([file, expect.stringContaining("requireRouteSession")]);
    expect(fs.existsSync("server/auth/request-guard.ts")).toBe(false);
  });

  it("every page is guarded by requirePageSession / requireAdminPage (or is one of the doors before a session)", () => {
    const open = new Set(["app/sign-in/page.tsx", "app/account/password/page.tsx", "app/invite/[token]/page.tsx"]);
    const adminLayout = fs.readFileSync("app/admin/layout.tsx", "utf8");
    expect(adminLayout).toContain("requireAdminPage");
    for (const page of files("app", "page.tsx")) {
      if (open.has(page) || page.startsWith("app/admin/")) continue;
      expect([page, fs.readFileSync(page, "utf8")]).toEqual([
        page,
        expect.stringMatching(/requirePageSession|requireAdminPage/),
      ]);
    }
  });
});

describe("one password rule for every path", () => {
  it(`better-auth's /change-password refuses a password shorter than ${MIN_PASSWORD_LENGTH} and keeps the old one`, async () => {
    const learner = await createLearner();
    await setPassword(learner.user.id, "the-first-long-password");
    const cookie = await signedInCookie(learner.user.email, "the-first-long-password");
    const short = "x".repeat(MIN_PASSWORD_LENGTH - 1);
    const res = await authRequest("/change-password", {
      headers: { cookie },
      body: { currentPassword: "the-first-long-password", newPassword: short },
    });
    expect(res.status).toBe(400);
    expect(await signedInCookie(learner.user.email, "the-first-long-password")).toMatch(/session_token=/);
  });

  it("better-auth's /change-password with a good password ends a one-time password like account.changePassword", async () => {
    const { email, password, cookie } = await oneTimeAdmin();
    const res = await authRequest("/change-password", {
      headers: { cookie },
      body: { currentPassword: password, newPassword: "a-perfectly-long-password" },
    });
    expect(res.status).toBe(200);
    const user = await getDb().user.findUniqueOrThrow({ where: { email } });
    expect(user.mustChangePassword).toBe(false);
  });

  it("account.changePassword answers WEAK_PASSWORD under the same rule", async () => {
    const learner = await createLearner();
    await setPassword(learner.user.id, "the-first-long-password");
    const cookie = await signedInCookie(learner.user.email, "the-first-long-password");
    const caller = await callerFromHeaders({ cookie });
    await expect(
      caller.account.changePassword({ currentPassword: "the-first-long-password", newPassword: "short-pass" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
