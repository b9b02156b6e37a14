import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createRuntimeKey } from "@/server/runtime-keys";
import { appRouter } from "@/server/trpc/root";
import { callerAs, setPassword, signedInCookie } from "../helpers/auth";
import { createTestJob, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { runtime } from "../helpers/runtime-api";
import { trpcHttp } from "../helpers/trpc-route";
import { releaseJobsOf } from "../helpers/release-jobs";
import { createWorld, procedureAt, PROCEDURES, type World } from "./procedure-table";

/**
 * No answer of any procedure carries a password hash, a session token, a Runtime key's hash (or
 * an older Runtime key itself), a credential's ciphertext or a decrypted credential. Every
 * procedure of the router is called, as learner A and as the admin, after A has signed in, stored
 * a DeepSeek key and had a user_deepseek_key job run to a result.
 */
const PATHS = Object.keys(appRouter._def.procedures);
const DEEPSEEK_KEY = `sk-${uid("secret")}-a1b2`;

let w: World;
const responses: { path: string; as: string; text: string }[] = [];
const plaintextKeys: string[] = [DEEPSEEK_KEY];
let runtimeKeyPlain: string;

afterAll(() => releaseJobsOf([w?.a, w?.b, w?.admin]));

beforeAll(async () => {
  w = await createWorld();
  const password = `pw-${uid()}`;
  await setPassword(w.a.user.id, password);
  const cookie = await signedInCookie(w.a.user.email, password);

  const a = callerAs(w.a.user);
  await a.credentials.set({ apiKey: DEEPSEEK_KEY });
  await a.consent.setApiKeyMode({ apiKeyMode: "user_deepseek_key" });
  runtimeKeyPlain = (await createRuntimeKey(uid("rt"))).key;
  const rt = runtime(runtimeKeyPlain, uid("inst"));
  const job = await createTestJob(w.a);
  const lock = await rt.lock(job.id);
  expect(lock.body.job.model.apiKey).toBe(DEEPSEEK_KEY);
  const kpIds = w.a.knowledgePoints.map((k) => k.id);
  expect((await rt.result(job.id, lock.body.job.attemptNo, validOutput("learning_state_analysis", kpIds))).status).toBe(
    200,
  );

  // Through the real HTTP route, with the real session cookie (before account.changePassword below ends that session).
  for (const path of ["me.get", "credentials.get", "jobs.list", "consent.get"]) {
    const res = await trpcHttp("query", path, undefined, { cookie });
    expect(res.status).toBe(200);
    responses.push({ path, as: "learnerA over HTTP", text: res.text });
  }
  await collectSecrets();
  for (const path of PATHS) {
    const entry = PROCEDURES[path];
    if (!entry) continue; // the matrix test fails for it
    const callers =
      entry.access === "admin"
        ? [["admin", w.admin]]
        : [
            ["learnerA", w.a],
            ["admin", w.admin],
          ];
    for (const [as, me] of callers as [string, typeof w.a][]) {
      const input = path === "jobs.get" && as === "learnerA" ? { jobId: job.id } : await entry.input(w, me);
      if (path === "credentials.set") plaintextKeys.push((input as { apiKey: string }).apiKey);
      // A procedure the matrix calls only to be refused (account.erase) is scanned on its refusal.
      const value = entry.refusedWith
        ? await procedureAt(callerAs(me.user), path)(input).catch((e: Error) => ({ refused: e.message }))
        : await procedureAt(callerAs(me.user), path)(input);
      responses.push({ path, as, text: JSON.stringify(value) });
      // Secrets that a later call erases (a replaced key's ciphertext) are still looked for.
      await collectSecrets();
    }
  }
  // The job with a result is in the scan: its answer must show the output.
  expect(responses.find((r) => r.path === "jobs.get" && r.as === "learnerA")?.text).toContain("Steady progress.");
});

const seen: Record<string, Set<string>> = {};

async function collectSecrets() {
  const db = getDb();
  const [accounts, sessions, keys, credentials] = await Promise.all([
    db.account.findMany({ where: { password: { not: null } }, select: { password: true } }),
    db.session.findMany({ select: { token: true } }),
    db.runtimeApiKey.findMany({ select: { hash: true } }),
    db.userCredential.findMany({ where: { ciphertext: { not: "" } }, select: { ciphertext: true } }),
  ]);
  const found = {
    "password hash": accounts.map((a) => a.password!),
    "session token": sessions.map((s) => s.token),
    "runtime key hash": keys.map((k) => k.hash),
    "credential ciphertext": credentials.map((c) => c.ciphertext),
    "decrypted credential": plaintextKeys,
    "runtime key": [runtimeKeyPlain],
  };
  for (const [kind, values] of Object.entries(found)) for (const v of values) (seen[kind] ??= new Set()).add(v);
}

async function forbidden() {
  await collectSecrets();
  return Object.fromEntries(Object.entries(seen).map(([kind, values]) => [kind, [...values]]));
}

describe("no procedure answer carries a secret", () => {
  it("the scan covered every procedure", () => {
    expect(new Set(responses.map((r) => r.path))).toEqual(new Set(PATHS));
  });

  it("the secrets looked for exist", async () => {
    const f = await forbidden();
    for (const [kind, values] of Object.entries(f)) expect(values.length, kind).toBeGreaterThan(0);
  });

  it.each(PATHS)("%s", async (path) => {
    const f = await forbidden();
    for (const r of responses.filter((x) => x.path === path)) {
      for (const [kind, values] of Object.entries(f)) {
        for (const secret of values)
          expect(r.text.includes(secret), `${path} as ${r.as} contains a ${kind}`).toBe(false);
      }
    }
  });

  it("credentials answers show the last four characters only", () => {
    const get = responses.find((r) => r.path === "credentials.get" && r.as === "learnerA")!;
    expect(JSON.parse(get.text)).toMatchObject({ provider: "deepseek", last4: expect.stringMatching(/^.{4}$/) });
  });
});
