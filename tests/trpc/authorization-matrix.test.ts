import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/trpc/root";
import { callerAs, callerFromHeaders } from "../helpers/auth";
import { createTestJob, runtimeKey, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { createWorld, fingerprint, procedureAt, PROCEDURES, type Access, type World } from "./procedure-table";

/**
 * The authorization matrix: every procedure of the router × anonymous, learner A, learner B,
 * admin and a Runtime key. Paths come from the router itself, so a new procedure without an
 * entry in procedure-table.ts fails here.
 */
const CALLERS = ["anonymous", "runtimeKey", "learnerA", "learnerB", "admin"] as const;
type Who = (typeof CALLERS)[number];
const PATHS = Object.keys(appRouter._def.procedures);

function expected(access: Access, who: Who): "allowed" | "UNAUTHORIZED" | "FORBIDDEN" {
  if (access === "public") return "allowed";
  if (who === "anonymous" || who === "runtimeKey") return "UNAUTHORIZED";
  if (access === "admin" && who !== "admin") return "FORBIDDEN";
  return "allowed";
}

let w: World;
let key: string;

afterAll(() => releaseJobsOf([w?.a, w?.b, w?.admin]));

beforeAll(async () => {
  w = await createWorld();
  key = await runtimeKey();
});

async function callerFor(who: Who) {
  if (who === "anonymous") return callerFromHeaders({});
  // A valid Runtime key opens the Runtime routes only: to tRPC it is no session at all.
  if (who === "runtimeKey") return callerFromHeaders({ authorization: `Bearer ${key}` });
  const user = { learnerA: w.a, learnerB: w.b, admin: w.admin }[who].user;
  return callerAs(user);
}

/** Data of the caller's own, or learner A's for callers who have none. */
function subject(who: Who): Learner {
  return who === "learnerB" ? w.b : who === "admin" ? w.admin : w.a;
}

async function outcome(promise: Promise<unknown>) {
  try {
    return { ok: true as const, value: await promise };
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    return { ok: false as const, code: e.code, error: e };
  }
}

describe("every procedure has a matrix entry", () => {
  it.each(PATHS)("%s", (path) => {
    expect(PROCEDURES[path], `add ${path} to tests/trpc/procedure-table.ts`).toBeDefined();
  });

  it("the table names no procedure the router lacks", () => {
    expect(Object.keys(PROCEDURES).filter((p) => !PATHS.includes(p))).toEqual([]);
  });

  it.each(PATHS)("%s declares input and output schemas", (path) => {
    const def = (
      appRouter._def.procedures as unknown as Record<string, { _def: { inputs: unknown[]; output?: unknown } }>
    )[path]!._def;
    expect(def.inputs.length).toBeGreaterThan(0);
    expect(def.output).toBeDefined();
  });
});

describe.each(PATHS)("%s", (path) => {
  const entry = PROCEDURES[path];
  it.each(CALLERS)(`as %s`, async (who) => {
    expect(entry).toBeDefined();
    const want = expected(entry!.access, who);
    const input = await entry!.input(w, subject(who));
    const before = await fingerprint(w);
    const result = await outcome(procedureAt(await callerFor(who), path)(input));
    if (want === "allowed" && entry!.refusedWith) {
      // Past the gate, refused by the procedure itself (by design of the input), nothing changed.
      expect(result.ok ? "allowed" : result.code).toBe(entry!.refusedWith);
      expect(await fingerprint(w)).toBe(before);
    } else if (want === "allowed") {
      expect(result.ok, result.ok ? "" : `${path} as ${who}: ${result.code} ${result.error.message}`).toBe(true);
    } else {
      expect(result.ok ? "allowed" : result.code).toBe(want);
      // A refused call changed nothing.
      expect(await fingerprint(w)).toBe(before);
    }
  });
});

describe("learner B never sees or changes learner A's data", () => {
  const foreignPaths = PATHS.filter((p) => PROCEDURES[p]?.foreign);

  it("the table covers every learner procedure that names a resource", () => {
    expect(foreignPaths.sort()).toEqual([
      "flashcards.study",
      "jobs.cancel",
      "jobs.create",
      "jobs.get",
      "materials.acceptProposals",
      "materials.addKnowledgePoint",
      "materials.delete",
      "materials.deleteKnowledgePoint",
      "materials.get",
      "materials.latestSuggestion",
      "materials.proposals",
      "materials.renameKnowledgePoint",
      "materials.update",
      "quiz.mark",
      "quiz.pending",
      "review.addDeck",
      "review.bury",
      "review.deck",
      "review.delete",
      "review.dismissDeck",
      "review.edit",
      "review.queue",
      "review.rate",
      "review.reset",
      "review.suspend",
      "snapshots.get",
    ]);
  });

  it.each(foreignPaths)("%s with A's resource is not found and changes nothing", async (path) => {
    const input = await PROCEDURES[path]!.foreign!(w);
    const before = await fingerprint(w);
    const result = await outcome(procedureAt(callerAs(w.b.user), path)(input));
    expect(result.ok ? "allowed" : result.code).toBe("NOT_FOUND");
    expect(await fingerprint(w)).toBe(before);
  });

  it("B's job list holds none of A's jobs, A's holds them", async () => {
    const job = await createTestJob(w.a);
    const seenByB = await callerAs(w.b.user).jobs.list({ pageSize: 100 });
    const seenByA = await callerAs(w.a.user).jobs.list({ pageSize: 100 });
    expect(seenByB.items.map((j) => j.id)).not.toContain(job.id);
    expect(seenByA.items.map((j) => j.id)).toContain(job.id);
    const aJobs = await callerAs(w.a.user).jobs.list({ pageSize: 100 });
    expect(aJobs.total).toBeGreaterThanOrEqual(1);
  });

  it("B's credential calls touch only B's key", async () => {
    const a = callerAs(w.a.user);
    const b = callerAs(w.b.user);
    await a.credentials.set({ apiKey: "sk-aaaaaaaaaaaaaaaaaaaa1111" });
    await b.credentials.delete();
    expect(await b.credentials.get()).toBeNull();
    await b.credentials.set({ apiKey: "sk-bbbbbbbbbbbbbbbbbbbb2222" });
    expect((await a.credentials.get())?.last4).toBe("1111");
    expect((await b.credentials.get())?.last4).toBe("2222");
  });

  it("B's consent change leaves A's alone", async () => {
    await callerAs(w.b.user).consent.set({ granted: false });
    expect((await callerAs(w.a.user).consent.get()).granted).toBe(true);
    await callerAs(w.b.user).consent.set({ granted: true });
  });
});

describe("allowed answers are the caller's own", () => {
  it("me.get names the signed-in user, and null for anonymous and Runtime-key callers", async () => {
    expect((await callerAs(w.a.user).me.get())?.user.id).toBe(w.a.user.id);
    expect((await callerAs(w.admin.user).me.get())?.user.role).toBe("admin");
    expect(await (await callerFor("anonymous")).me.get()).toBeNull();
    expect(await (await callerFor("runtimeKey")).me.get()).toBeNull();
  });

  it("the admin sees every learner's jobs; a learner only their own", async () => {
    const [ja, jb] = await Promise.all([createTestJob(w.a), createTestJob(w.b)]);
    const all = await callerAs(w.admin.user).admin.explorer.list({ limit: 200 });
    expect(all.items.map((j) => j.id)).toEqual(expect.arrayContaining([ja.id, jb.id]));
    const onlyA = await callerAs(w.admin.user).admin.explorer.list({ filter: { user: w.a.user.id }, limit: 200 });
    expect(onlyA.items.map((j) => j.id)).toContain(ja.id);
    expect(new Set(onlyA.items.map((j) => j.userId))).toEqual(new Set([w.a.user.id]));
  });
});
