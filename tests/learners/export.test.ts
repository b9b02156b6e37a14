import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { GET as accountExport } from "@/app/api/account/export/route";
import { GET as adminExport } from "@/app/api/admin/learners/[userId]/export/route";
import { setQuotaLimit } from "@/server/admin/quotas";
import { getSession } from "@/server/auth/session";
import { APP_URL, callerAs, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";
import { platform, serviceKey } from "../helpers/platform-api";

async function signedIn(role: "learner" | "admin" = "learner") {
  const learner = await createLearner({ role });
  const password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
  return { ...learner, cookie: await signedInCookie(learner.user.email, password) };
}

const get = (
  handler: (r: Request, c: never) => Promise<Response>,
  path: string,
  cookie: string | null,
  ctx?: unknown,
) => handler(new Request(`${APP_URL}${path}`, { headers: cookie ? { cookie } : {} }), ctx as never);

describe("export", () => {
  it("'Download my data' is a JSON file of everything stored about the learner, with no secrets, and is audited", async () => {
    const me = await signedIn();
    const caller = callerAs({ ...me.user, role: "learner" });
    await caller.credentials.set({ apiKey: "sk-export-0123456789abcdef" });
    const deck = await succeededJob(me, "flashcard_generation", { count: 3 });
    await caller.flashcards.setMark({ jobId: deck.id, cardIndex: 0, known: true });
    const admin = await createLearner({ role: "admin" });
    await setQuotaLimit({ actorId: admin.user.id, userId: me.user.id, metric: "jobs", period: "day", allowed: 77 });

    const res = await get(accountExport, "/api/account/export", me.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    const data = JSON.parse(text);
    expect(data.account).toMatchObject({ id: me.user.id, email: me.user.email, name: me.user.name, role: "learner" });
    expect(data.account.signInMethods).toEqual([expect.objectContaining({ providerId: "credential" })]);
    expect(data.sessions).toHaveLength(1);
    expect(data.consent.granted).toBe(true);
    expect(data.credentials).toEqual([expect.objectContaining({ provider: "deepseek", last4: "cdef" })]);
    expect(data.materials).toEqual([
      expect.objectContaining({ id: me.material.id, title: "Photosynthesis", text: expect.any(String) }),
    ]);
    expect(data.knowledgePoints).toHaveLength(3);
    expect(data.quizAttempts).toHaveLength(9);
    expect(data.studySessions.length).toBeGreaterThanOrEqual(2); // the factory's and the deck review's
    expect(data.flashcardMarks).toEqual([expect.objectContaining({ jobId: deck.id, cardIndex: 0 })]);
    expect(data.snapshots.length).toBeGreaterThanOrEqual(1);
    const job = data.jobs.find((j: { id: string }) => j.id === deck.id);
    expect(job.result.output.flashcards).toHaveLength(3);
    expect(job.events.map((e: { toStatus: string }) => e.toStatus)).toEqual(["pending", "locked", "succeeded"]);
    expect(job.events[0]).not.toHaveProperty("actorId");
    expect(data.quota.usage.length).toBeGreaterThan(0);
    expect(data.quota.overrides).toEqual([expect.objectContaining({ metric: "jobs", period: "day", allowed: 77 })]);
    // No password hash, session token, encrypted key, or the admin who acted.
    const account = await getDb().account.findFirstOrThrow({ where: { userId: me.user.id } });
    const session = await getDb().session.findFirstOrThrow({ where: { userId: me.user.id } });
    const credential = await getDb().userCredential.findFirstOrThrow({ where: { userId: me.user.id } });
    for (const secret of [account.password!, session.token, credential.ciphertext, "sk-export", admin.user.id])
      expect(text).not.toContain(secret);
    const audit = await getDb().adminAuditLog.findMany({ where: { action: "learner.export" } });
    expect(audit.map((a) => [a.actorId, a.scope])).toEqual([[me.user.id, { userId: me.user.id, by: "learner" }]]);
  });

  it("signed out: 401; a learner cannot use the admin export; an admin can, for any learner; unknown: 404", async () => {
    const learner = await signedIn();
    const admin = await signedIn("admin");
    expect((await get(accountExport, "/api/account/export", null)).status).toBe(401);
    const ctx = (userId: string) => ({ params: Promise.resolve({ userId }) });
    const path = `/api/admin/learners/${learner.user.id}/export`;
    const refused = await get(adminExport, path, learner.cookie, ctx(learner.user.id));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("FORBIDDEN");
    const ok = await get(adminExport, path, admin.cookie, ctx(learner.user.id));
    expect(ok.status).toBe(200);
    expect((await ok.json()).account.id).toBe(learner.user.id);
    for (const id of ["nobody", "__proto__", "toString", "\u0000", "\ud800"]) {
      const res = await get(adminExport, `/api/admin/learners/x/export`, admin.cookie, ctx(id));
      expect(res.status, JSON.stringify(id)).toBe(404);
    }
    const audit = await getDb().adminAuditLog.findMany({ where: { action: "learner.export", actorId: admin.user.id } });
    expect(audit).toHaveLength(1);
  });
});

describe("export reaches learners only", () => {
  it("an admin cannot export another admin (console route and platform API); an admin's own download still works", async () => {
    const admin = await signedIn("admin");
    const other = await signedIn("admin");
    const ctx = { params: Promise.resolve({ userId: other.user.id }) };
    const refused = await get(adminExport, `/api/admin/learners/${other.user.id}/export`, admin.cookie, ctx);
    expect(refused.status).toBe(403);
    const body = await refused.text();
    expect(JSON.parse(body).error.code).toBe("FORBIDDEN");
    expect(body).not.toContain(other.user.email);
    // An external id on an admin account (however it got there) does not open it to a service key.
    const ext = uid("ext");
    await getDb().user.update({ where: { id: other.user.id }, data: { externalId: ext } });
    const api = platform(await serviceKey());
    expect((await api.exportLearner(ext)).status).toBe(404);
    expect((await api.eraseLearner(ext)).status).toBe(404);
    expect((await api.putLearner(ext, { name: "Renamed" })).status).toBe(403);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: other.user.id } })).name).toBe(other.user.name);
    expect(
      await getDb().adminAuditLog.count({
        where: { action: "learner.export", scope: { path: ["userId"], equals: other.user.id } },
      }),
    ).toBe(0);
    const own = await get(accountExport, "/api/account/export", other.cookie);
    expect(own.status).toBe(200);
    expect((await own.json()).account.id).toBe(other.user.id);
  });
});

describe("'Delete my account' and the console's erasure", () => {
  it("needs the typed email; then erases and signs out; an admin erases any learner the same way; learners cannot", async () => {
    const me = await signedIn();
    const caller = callerAs({ ...me.user, role: "learner" });
    expect(await codeOf(caller.account.erase({ confirmEmail: "someone@else.test" }))).toBe("BAD_REQUEST");
    expect(await getDb().user.count({ where: { id: me.user.id } })).toBe(1);
    const done = await caller.account.erase({ confirmEmail: ` ${me.user.email.toUpperCase()} ` });
    expect(done.counts.materials).toBe(1);
    expect(await getDb().user.count({ where: { id: me.user.id } })).toBe(0);
    expect(await getSession(new Headers({ cookie: me.cookie }))).toBeNull();

    const other = await createLearner();
    const admin = await createLearner({ role: "admin" });
    const learnerCaller = callerAs({ ...(await createLearner()).user, role: "learner" });
    expect(
      await codeOf(learnerCaller.admin.learnerData.erase({ userId: other.user.id, confirmEmail: other.user.email })),
    ).toBe("FORBIDDEN");
    const adminCaller = callerAs({ ...admin.user, role: "admin" });
    expect(await codeOf(adminCaller.admin.learnerData.erase({ userId: other.user.id, confirmEmail: "x@y.z" }))).toBe(
      "BAD_REQUEST",
    );
    await adminCaller.admin.learnerData.erase({ userId: other.user.id, confirmEmail: other.user.email });
    expect(await getDb().user.count({ where: { id: other.user.id } })).toBe(0);
    expect(
      await codeOf(adminCaller.admin.learnerData.erase({ userId: other.user.id, confirmEmail: other.user.email })),
    ).toBe("NOT_FOUND");
  });
});
