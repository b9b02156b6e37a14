import { beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { callApi, platform, serviceKey } from "../helpers/platform-api";
import { runtime } from "../helpers/runtime-api";

let api: ReturnType<typeof platform>;
beforeAll(async () => {
  api = platform(await serviceKey());
});

/** A platform learner with consent and one pending job started through the API. */
async function pendingJob() {
  const ext = uid("ext");
  await api.putLearner(ext, { name: "Cancel", aiConsent: true });
  const started = await api.startJob(ext, { jobType: "learning_state_analysis", target: { type: "user" } });
  expect(started.status).toBe(201);
  return started.body.job.id as string;
}

/** What a cancel must leave alone: status, flags, attempt, events. */
const state = async (id: string) => {
  const row = await jobRow(id);
  return {
    status: row.status,
    cancelRequested: row.cancelRequested,
    attemptNo: row.attemptNo,
    errorCode: row.errorCode,
    events: row.events.length,
  };
};

describe("POST /api/v1/jobs/{jobId}/cancel", () => {
  it("a pending job ends cancelled at once, by the platform; a second call answers the same and changes nothing", async () => {
    const id = await pendingJob();
    const first = await api.cancelJob(id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id, status: "cancelled", cancelRequested: false, error: { code: "CANCELLED" } });
    const row = await jobRow(id);
    expect(row.events.at(-1)).toMatchObject({ fromStatus: "pending", toStatus: "cancelled", actorType: "platform" });
    const after = await state(id);
    const again = await api.cancelJob(id);
    expect([again.status, again.body.status]).toEqual([200, "cancelled"]);
    expect(await state(id)).toEqual(after);
    // A Runtime can no longer take it.
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(id)).body.error.code).toBe("JOB_NOT_LOCKABLE");
  });

  it("a running job is asked to stop: its Runtime learns it on the heartbeat and its acknowledgment ends it cancelled", async () => {
    const id = await pendingJob();
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(id)).status).toBe(200);
    expect((await rt.heartbeat(id, 1)).body.cancelRequested).toBe(false);
    const asked = await api.cancelJob(id);
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: "running", cancelRequested: true });
    const again = await api.cancelJob(id);
    expect(again.body).toMatchObject({ status: "running", cancelRequested: true });
    expect((await rt.heartbeat(id, 1)).body.cancelRequested).toBe(true);
    expect((await rt.fail(id, 1, "CANCELLED", "stopped")).body.status).toBe("cancelled");
    expect((await api.getJob(id)).body).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
  });

  it("two cancels racing on one pending job: both 200, one transition", async () => {
    const id = await pendingJob();
    const answers = await Promise.all([api.cancelJob(id), api.cancelJob(id), api.cancelJob(id)]);
    expect(answers.map((a) => [a.status, a.body.status])).toEqual([
      [200, "cancelled"],
      [200, "cancelled"],
      [200, "cancelled"],
    ]);
    const events = (await jobRow(id)).events.filter((e) => e.toStatus === "cancelled");
    expect(events).toHaveLength(1);
  });

  it("a finished job is 409 JOB_NOT_CANCELLABLE with its status, and stays as it was", async () => {
    const id = await pendingJob();
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(id)).status).toBe(200);
    expect((await rt.fail(id, 1, "INVALID_SNAPSHOT", "unusable")).body.status).toBe("failed");
    const before = await state(id);
    const refused = await api.cancelJob(id);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      409,
      "JOB_NOT_CANCELLABLE",
      { status: "failed" },
    ]);
    expect(await state(id)).toEqual(before);
  });

  it("hostile input: another learner's job, unknown and hostile ids, a key without jobs:write, a body, GET: no change", async () => {
    const own = await createLearner();
    const notThePlatforms = await createTestJob(own);
    const mine = await pendingJob();
    const before = [await state(notThePlatforms.id), await state(mine)];
    for (const id of [
      notThePlatforms.id,
      "nope",
      "__proto__",
      "toString",
      "constructor",
      "a\u0000b",
      "a\ufffdb",
      "x".repeat(65),
      "bad id!",
      "..",
      `${mine} `,
    ]) {
      const res = await api.cancelJob(id);
      expect([id, res.status, res.body.error.code]).toEqual([id, 404, "JOB_NOT_FOUND"]);
    }
    const readOnly = platform(await serviceKey(["jobs:read"]));
    const forbidden = await readOnly.cancelJob(mine);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const key = await serviceKey();
    const withBody = await callApi("POST", `/jobs/${notThePlatforms.id}/cancel`, undefined, {
      key,
      raw: JSON.stringify({ __proto__: { admin: true }, userId: own.user.id, force: true }),
    });
    expect(withBody.status).toBe(404);
    const wrongMethod = await callApi("GET", `/jobs/${mine}/cancel`, undefined, { key });
    expect([wrongMethod.status, wrongMethod.body.error.code]).toEqual([405, "METHOD_NOT_ALLOWED"]);
    expect([await state(notThePlatforms.id), await state(mine)]).toEqual(before);
    expect(before[1]!.status).toBe("pending");
  });
});
