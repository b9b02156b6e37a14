import { describe, expect, it } from "vitest";
import { POST as acceptRoute } from "@/app/api/invitations/accept/route";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { getDb } from "@/server/db";
import { handleAuthRequest } from "@/server/auth/handler";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "@/server/security/json-depth";
import { APP_URL, uniqueIp } from "../helpers/auth";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { call } from "../helpers/runtime-api";
import { callApi, serviceKey } from "../helpers/platform-api";

/** Valid JSON nested `depth` levels: objects, or arrays. */
const objects = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const arrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const DEEP = [objects(5_000), arrays(5_000)];

describe("nestsDeeperThan", () => {
  it("counts brackets outside strings only, on text or UTF-8 bytes, up to the limit and not past it", () => {
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH + 1))).toBe(true);
    // Brackets in strings, escaped quotes and backslashes, and multi-byte text do not count.
    const text = JSON.stringify({ s: "[".repeat(500) + '\\"{{{' + "\\".repeat(3), t: "字[".repeat(300) });
    expect(nestsDeeperThan(text)).toBe(false);
    expect(nestsDeeperThan(new TextEncoder().encode(text))).toBe(false);
    expect(nestsDeeperThan(new TextEncoder().encode(`{"字":${arrays(200)}}`))).toBe(true);
    expect(nestsDeeperThan(`{"a":"\\\\"${"[".repeat(101)}`)).toBe(true);
  });
});

describe("a body nested 5,000 deep is 400 MALFORMED_JSON at every door, and changes nothing", () => {
  it("the Runtime API", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const key = await runtimeKey();
    for (const raw of DEEP) {
      const res = await call("lock", job.id, null, { key, rawBody: raw });
      expect([res.status, res.body.error.code]).toEqual([400, "MALFORMED_JSON"]);
    }
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("pending");
  });

  it("the platform API", async () => {
    const key = await serviceKey();
    for (const raw of DEEP) {
      const res = await callApi("POST", `/learners/${uid("ext")}/activity`, undefined, { key, raw });
      expect([res.status, res.body.error.code]).toEqual([400, "MALFORMED_JSON"]);
    }
  });

  it("tRPC: a mutation's body and a query's input", async () => {
    for (const raw of DEEP) {
      const posted = await trpcPost(
        new Request(`${APP_URL}/api/trpc/account.setLocale`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: APP_URL },
          body: raw,
        }),
      );
      const query = new URL(`${APP_URL}/api/trpc/jobs.list`);
      query.searchParams.set("input", raw);
      const got = await trpcGet(new Request(query));
      for (const res of [posted, got]) {
        const body = await res.json();
        expect([res.status, body.error.code, body.error.data.appCode]).toEqual([
          400,
          "MALFORMED_JSON",
          "MALFORMED_JSON",
        ]);
      }
    }
  });

  it("auth: better-auth's JSON endpoints and the invitation's acceptance", async () => {
    const users = await getDb().user.count();
    for (const raw of DEEP) {
      for (const path of ["/api/auth/sign-up/email", "/api/auth/sign-in/email", "/api/invitations/accept"]) {
        const req = new Request(`${APP_URL}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: APP_URL, "x-forwarded-for": uniqueIp() },
          body: raw,
        });
        const res = path.startsWith("/api/auth") ? await handleAuthRequest(req) : await acceptRoute(req);
        expect([path, res.status, (await res.json()).error.code]).toEqual([path, 400, "MALFORMED_JSON"]);
      }
    }
    expect(await getDb().user.count()).toBe(users);
  });
});
