import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { decryptSecret, encryptSecret } from "@/server/security/secret-box";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

describe("AES-256-GCM secret box", () => {
  it("round-trips, with a fresh IV each time", () => {
    const secret = "sk-round-trip-0123456789";
    const one = encryptSecret(secret);
    const two = encryptSecret(secret);
    expect(one).not.toBe(two);
    expect(one).not.toContain(secret);
    expect(decryptSecret(one)).toBe(secret);
    expect(decryptSecret(two)).toBe(secret);
  });

  it.each([
    ["ciphertext", 3],
    ["tag", 2],
    ["iv", 1],
  ] as const)("rejects a tampered %s", (_part, index) => {
    const parts = encryptSecret("sk-tamper-me-0123456789").split(".");
    const bytes = Buffer.from(parts[index]!, "base64url");
    bytes[0] = bytes[0]! ^ 0x01;
    parts[index] = bytes.toString("base64url");
    expect(() => decryptSecret(parts.join("."))).toThrow();
  });

  it("rejects an unknown format", () => {
    expect(() => decryptSecret("v0.a.b.c")).toThrow(/unrecognised/);
    expect(() => decryptSecret("not a ciphertext")).toThrow();
  });
});

describe("a learner's DeepSeek key", () => {
  let a: Learner;
  let b: Learner;
  const KEY = `sk-${uid("lease")}-9z9z`;

  beforeAll(async () => {
    [a, b] = await Promise.all([createLearner(), createLearner()]);
  });
  afterAll(() => releaseJobsOf([a, b]));

  it("is stored encrypted and shown as its last four characters", async () => {
    const masked = await callerAs(a.user).credentials.set({ apiKey: KEY });
    expect(masked).toMatchObject({ provider: "deepseek", last4: "9z9z" });
    const row = await getDb().userCredential.findFirstOrThrow({ where: { userId: a.user.id, deletedAt: null } });
    expect(row.ciphertext).not.toContain(KEY);
    expect(decryptSecret(row.ciphertext)).toBe(KEY);
  });

  it("choosing user_deepseek_key without a stored key is refused with CREDENTIAL_REQUIRED, and nothing changes", async () => {
    const err = await callerAs(b.user)
      .consent.setApiKeyMode({ apiKeyMode: "user_deepseek_key" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.cause.code).toBe("CREDENTIAL_REQUIRED");
    expect((await callerAs(b.user).consent.get()).apiKeyMode).toBe("platform_key");
    // The same rule at job creation, for a job that asks for the learner's key directly.
    const create = await callerAs(b.user)
      .jobs.create({
        jobType: "learning_state_analysis",
        target: { type: "user", id: b.user.id },
        apiKeyMode: "user_deepseek_key",
      })
      .catch((e) => e);
    expect(create.cause.code).toBe("CREDENTIAL_REQUIRED");
  });

  it("reaches only the Runtime holding the lease, and no tRPC answer", async () => {
    await callerAs(a.user).consent.setApiKeyMode({ apiKeyMode: "user_deepseek_key" });
    const job = await createTestJob(a);
    const key = await runtimeKey();
    const holder = runtime(key, uid("holder"));
    const other = runtime(key, uid("other"));

    const polled = await other.poll();
    expect(polled.status).toBe(200);
    expect(JSON.stringify(polled.body)).not.toContain(KEY);

    const lock = await holder.lock(job.id);
    expect(lock.status).toBe(200);
    expect(lock.body.job.model).toMatchObject({ apiKeyMode: "user_deepseek_key", apiKey: KEY });

    const second = await other.lock(job.id);
    expect(second.status).toBe(409);
    expect(JSON.stringify(second.body)).not.toContain(KEY);
    const beat = await other.heartbeat(job.id, lock.body.job.attemptNo);
    expect(beat.status).toBe(409);
    expect(JSON.stringify(beat.body)).not.toContain(KEY);

    const answers = await Promise.all([
      callerAs(a.user).jobs.get({ jobId: job.id }),
      callerAs(a.user).jobs.list({}),
      callerAs(a.user).credentials.get(),
      callerAs(a.user).consent.get(),
    ]);
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(KEY);
  });

  it("a platform_key job's lock carries no key", async () => {
    await callerAs(a.user).consent.setApiKeyMode({ apiKeyMode: "platform_key" });
    const job = await createTestJob(a);
    const lock = await runtime(await runtimeKey(), uid("rt")).lock(job.id);
    expect(lock.status).toBe(200);
    expect(lock.body.job.model.apiKeyMode).toBe("platform_key");
    expect(lock.body.job.model).not.toHaveProperty("apiKey");
  });

  it("replacing the key erases the old ciphertext; the lock hands out the new key", async () => {
    const caller = callerAs(a.user);
    await caller.credentials.set({ apiKey: "sk-replacement-key-0000-new1" });
    const rows = await getDb().userCredential.findMany({ where: { userId: a.user.id }, orderBy: { createdAt: "asc" } });
    expect(rows.filter((r) => r.deletedAt === null)).toHaveLength(1);
    expect(rows.filter((r) => r.deletedAt !== null).every((r) => r.ciphertext === "")).toBe(true);
    expect((await caller.credentials.get())?.last4).toBe("new1");

    await caller.consent.setApiKeyMode({ apiKeyMode: "user_deepseek_key" });
    const job = await createTestJob(a);
    const lock = await runtime(await runtimeKey(), uid("rt")).lock(job.id);
    expect(lock.body.job.model.apiKey).toBe("sk-replacement-key-0000-new1");
  });

  it("deleting the key erases it and moves the learner back to the platform key", async () => {
    const caller = callerAs(a.user);
    expect(await caller.credentials.delete()).toEqual({ deleted: true, apiKeyMode: "platform_key" });
    expect(await caller.credentials.get()).toBeNull();
    expect((await caller.consent.get()).apiKeyMode).toBe("platform_key");
    const active = await getDb().userCredential.count({
      where: { userId: a.user.id, OR: [{ deletedAt: null }, { ciphertext: { not: "" } }] },
    });
    expect(active).toBe(0);
    expect(await caller.credentials.delete()).toEqual({ deleted: false, apiKeyMode: "platform_key" });
  });

  it("a malformed key is refused with 400 and nothing is stored", async () => {
    const before = await getDb().userCredential.count({ where: { userId: b.user.id } });
    for (const apiKey of ["short", "sk-has a space-0123456789", `sk-${"x".repeat(300)}`]) {
      const err = await callerAs(b.user)
        .credentials.set({ apiKey })
        .catch((e) => e);
      expect(err.code).toBe("BAD_REQUEST");
    }
    expect(await getDb().userCredential.count({ where: { userId: b.user.id } })).toBe(before);
  });
});
