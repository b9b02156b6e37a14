import { describe, expect, it } from "vitest";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";
import { getDb } from "@/server/db";
import { hashKey } from "@/server/key-hash";
import { createServiceKey, revokeServiceKey } from "@/server/platform/service-keys";
import { callerAs } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { callApi, platform, serviceKey } from "../helpers/platform-api";

describe("service keys", () => {
  it("are stored hashed, audited when made and revoked, and a revoked key answers 401 on its next call", async () => {
    const made = await createServiceKey(uid("svc"), ["learners:write"], "admin-1");
    const row = await getDb().serviceKey.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.hash).toBe(hashKey(made.key));
    expect(JSON.stringify(row)).not.toContain(made.key);
    const api = platform(made.key);
    expect((await api.putLearner(uid("ext"), { name: "Before" })).status).toBe(201);

    await revokeServiceKey(made.id, "admin-1");
    const after = await api.putLearner(uid("ext"), { name: "After" });
    expect(after.status).toBe(401);
    expect(after.body.error).toMatchObject({ code: "UNAUTHORIZED", message: "service key revoked" });
    const audit = await getDb().adminAuditLog.findMany({
      where: { action: { startsWith: "service_key." } },
      orderBy: { id: "asc" },
    });
    const mine = audit.filter((a) => (a.scope as { keyId: string }).keyId === made.id);
    expect(mine.map((a) => [a.action, a.actorId])).toEqual([
      ["service_key.create", "admin-1"],
      ["service_key.revoke", "admin-1"],
    ]);
    // Revoking again changes nothing and writes no row.
    await revokeServiceKey(made.id, "admin-1");
    expect(await getDb().adminAuditLog.count({ where: { action: "service_key.revoke" } })).toBe(
      audit.filter((a) => a.action === "service_key.revoke").length,
    );
  });

  it("a missing, malformed or unknown key is a 401; a key without the route's scope is a 403 and writes nothing", async () => {
    for (const key of [null, "ajs_unknown", "Basic abc"]) {
      const res = await callApi("PUT", `/learners/${uid("ext")}`, { name: "x" }, { key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHORIZED");
    }
    const readOnly = platform(await serviceKey(["jobs:read"]));
    const users = await getDb().user.count();
    const res = await readOnly.putLearner(uid("ext"), { name: "x" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect(res.body.error.message).toContain("learners:write");
    expect(await getDb().user.count()).toBe(users);
  });

  it("admins make, list and revoke them through tRPC (the key is in the create answer only); learners cannot", async () => {
    const admin = await createLearner({ role: "admin" });
    const caller = callerAs({ ...admin.user, role: "admin" });
    const made = await caller.admin.serviceKeys.create({ name: "lms", scopes: ["jobs:read", "jobs:write"] });
    expect(made.key).toMatch(/^ajs_/);
    const list = await caller.admin.serviceKeys.list();
    const item = list.items.find((k) => k.id === made.id)!;
    expect(item).toMatchObject({ name: "lms", scopes: ["jobs:read", "jobs:write"], revokedAt: null });
    expect(JSON.stringify(list)).not.toContain(made.key);
    await caller.admin.serviceKeys.revoke({ id: made.id });
    expect((await caller.admin.serviceKeys.list()).items.find((k) => k.id === made.id)!.revokedAt).not.toBeNull();

    const learner = await createLearner();
    await expect(callerAs({ ...learner.user, role: "learner" }).admin.serviceKeys.list()).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it(
    "npm run service-key prints the key alone on its last line, with the scopes asked for",
    async () => {
      const name = uid("cli");
      const { status, stdout } = await runScript("scripts/create-service-key.ts", [
        name,
        "--scopes",
        "activity:write,data:erase",
      ]);
      expect(status).toBe(0);
      const lines = stdout.trim().split("\n");
      const key = lines.at(-1)!;
      expect(key).toMatch(/^ajs_[A-Za-z0-9_-]{43}$/);
      const row = await getDb().serviceKey.findUniqueOrThrow({ where: { hash: hashKey(key) } });
      expect(row).toMatchObject({ name, scopes: ["activity:write", "data:erase"] });
      const audit = await getDb().adminAuditLog.findFirst({
        where: { action: "service_key.create", actorId: "cli:service-key" },
      });
      expect(audit).not.toBeNull();
      expect((await runScript("scripts/create-service-key.ts", ["x", "--scopes", "root"])).status).toBe(64);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe("npm run service-key -- --list / --revoke", () => {
  it(
    "lists the keys without their secrets, revokes one (audited like the console's; its next call is a 401), and refuses what it cannot do",
    async () => {
      const made = await createServiceKey(uid("cli-list"), ["jobs:read"], "admin-1");
      const api = platform(made.key);
      expect((await api.getJob("nope")).status).toBe(404);

      const listed = await runScript("scripts/create-service-key.ts", ["--list"]);
      expect(listed.status).toBe(0);
      const line = listed.stdout.split("\n").find((l) => l.startsWith(made.id))!;
      expect(line).toContain(JSON.stringify(made.name));
      expect(line).toContain(`${made.prefix}…`);
      expect(line).toContain("jobs:read");
      expect(line).toMatch(/active$/);
      expect(listed.stdout).not.toContain(made.key);

      const revoked = await runScript("scripts/create-service-key.ts", ["--revoke", made.id]);
      expect([revoked.status, revoked.stdout.trim()]).toEqual([0, `Service key ${made.id} revoked`]);
      const after = await api.getJob("nope");
      expect([after.status, after.body.error.message]).toEqual([401, "service key revoked"]);
      const audit = () =>
        getDb().adminAuditLog.findMany({
          where: { action: "service_key.revoke", scope: { path: ["keyId"], equals: made.id } },
        });
      expect((await audit()).map((a) => [a.actorId, a.count])).toEqual([["cli:service-key", 1]]);

      // Again: nothing changes, no second audit row; the list says when it was revoked.
      const again = await runScript("scripts/create-service-key.ts", ["--revoke", made.id]);
      expect([again.status, again.stdout.trim()]).toEqual([0, `Service key ${made.id} was already revoked`]);
      expect(await audit()).toHaveLength(1);
      const relisted = await runScript("scripts/create-service-key.ts", ["--list"]);
      expect(relisted.stdout.split("\n").find((l) => l.startsWith(made.id))).toMatch(
        /revoked \d{4}-\d\d-\d\dT[\d:]+Z$/,
      );

      const unknown = await runScript("scripts/create-service-key.ts", ["--revoke", "no-such-key"]);
      expect([unknown.status, unknown.stderr.trim()]).toEqual([1, "service-key: service key not found"]);
      for (const args of [["--revoke"], ["--list", "name"], ["--revoke", "__proto__ x"]]) {
        const bad = await runScript("scripts/create-service-key.ts", args);
        expect([args, bad.status]).toEqual([args, 64]);
      }
      expect(await getDb().serviceKey.count({ where: { revokedAt: null, id: made.id } })).toBe(0);
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );
});

describe("rate limit per key", () => {
  it("past PLATFORM_API_RATE_LIMIT calls a minute: 429 RATE_LIMITED with Retry-After; another key is not affected", async () => {
    process.env.PLATFORM_API_RATE_LIMIT = "3";
    try {
      const key = await serviceKey();
      const ext = uid("ext");
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await callApi("PUT", `/learners/${ext}`, { name: `n${i}` }, { key }));
      expect(answers.map((a) => a.status)).toEqual([201, 200, 200, 429]);
      const limited = answers[3]!;
      expect(limited.body.error.code).toBe("RATE_LIMITED");
      const retry = Number(limited.headers.get("retry-after"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      // The refused call wrote nothing.
      expect((await getDb().user.findUniqueOrThrow({ where: { externalId: ext } })).name).toBe("n2");
      const other = await callApi("PUT", `/learners/${uid("ext")}`, { name: "other" }, { key: await serviceKey() });
      expect(other.status).toBe(201);
    } finally {
      delete process.env.PLATFORM_API_RATE_LIMIT;
    }
  });
});
