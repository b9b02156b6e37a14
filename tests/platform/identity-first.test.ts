import { describe, expect, it } from "vitest";
import { POST as apiPost } from "@/app/api/v1/[...path]/route";
import { POST as runtimePost } from "@/app/internal/runtime/jobs/[...path]/route";
import { POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { ANONYMOUS_BODY_BYTES } from "@/server/security/body-limit";
import { setting } from "@/server/config";
import { uid } from "../helpers/factories";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * Every door knows its caller before it reads a large body: the test's body is a stream that
 * counts what the door pulled from it, so "unread" is measured, not guessed.
 */
const CHUNK = 64 * 1024;

function countedBody(totalBytes: number, fill = "a") {
  const state = { pulled: 0 };
  const chunk = new TextEncoder().encode(fill.repeat(CHUNK));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (state.pulled >= totalBytes) return c.close();
        const piece = chunk.subarray(0, Math.min(CHUNK, totalBytes - state.pulled));
        state.pulled += piece.byteLength;
        c.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function post(url: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string>) {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

const activityPath = (ext: string) => ({ params: Promise.resolve({ path: ["learners", ext, "activity"] }) });

describe("identity before work", () => {
  it("platform API: a bogus key's 2.1 MB post is 401 with its body unread", async () => {
    const { stream, state } = countedBody(2.1 * 1024 * 1024);
    const res = await apiPost(
      post("http://localhost/api/v1/learners/x/activity", stream, { authorization: "Bearer sk_bogus" }),
      activityPath("x"),
    );
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("UNAUTHORIZED");
    expect(state.pulled).toBeLessThanOrEqual(CHUNK);
  });

  it("platform API: a body over the limit is 413 by its declared length unread, or at the first bytes past it", async () => {
    const key = await serviceKey();
    const limit = setting("PLATFORM_API_MAX_BODY_BYTES");
    const declared = countedBody(limit + 1);
    const one = await apiPost(
      post("http://localhost/api/v1/learners/x/activity", declared.stream, {
        authorization: `Bearer ${key}`,
        "content-length": String(limit + 1),
      }),
      activityPath("x"),
    );
    expect(one.status).toBe(413);
    expect(declared.state.pulled).toBeLessThanOrEqual(CHUNK);

    const chunked = countedBody(limit * 4);
    const two = await apiPost(
      post("http://localhost/api/v1/learners/x/activity", chunked.stream, { authorization: `Bearer ${key}` }),
      activityPath("x"),
    );
    expect(two.status).toBe(413);
    expect((await two.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(chunked.state.pulled).toBeLessThanOrEqual(limit + 2 * CHUNK);
  });

  it("platform API: after a 409 CARD_LOG_FULL the key's next activity calls for that learner are 429 with their bodies unread", async () => {
    const key = await serviceKey();
    const ext = uid("ext");
    expect((await platform(key).putLearner(ext, { name: "L" })).status).toBe(201);
    const reviews = Array.from({ length: 501 }, (_, i) => ({
      externalId: `r-${i}`,
      cardExternalId: "one-card",
      front: "F",
      back: "B",
      rating: "good",
      reviewedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    }));
    const full = await platform(key).activity(ext, { reviews });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe("CARD_LOG_FULL");

    const { stream, state } = countedBody(1024 * 1024);
    const next = await apiPost(
      post(`http://localhost/api/v1/learners/${ext}/activity`, stream, { authorization: `Bearer ${key}` }),
      activityPath(ext),
    );
    expect(next.status).toBe(429);
    expect((await next.json()).error.code).toBe("RATE_LIMITED");
    expect(Number(next.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(state.pulled).toBeLessThanOrEqual(CHUNK);
    // Another learner of the same key is not held back.
    const other = uid("ext");
    expect((await platform(key).putLearner(other, { name: "M" })).status).toBe(201);
    expect((await platform(key).activity(other, { reviews: reviews.slice(0, 3) })).status).toBe(200);
  });

  it("Runtime API: a bogus key's large post is 401 with its body unread", async () => {
    const { stream, state } = countedBody(2 * 1024 * 1024);
    const res = await runtimePost(
      post("http://localhost/internal/runtime/jobs/poll", stream, { authorization: "Bearer rk_bogus" }),
      { params: Promise.resolve({ path: ["poll"] }) },
    );
    expect(res.status).toBe(401);
    expect(state.pulled).toBeLessThanOrEqual(CHUNK);
  });

  it("tRPC: a caller with no session has a small limit; its large body is refused at the first bytes past it", async () => {
    const { stream, state } = countedBody(10 * 1024 * 1024);
    const res = await trpcPost(post("http://localhost:3000/api/trpc/jobs.create", stream, {}));
    expect(res.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(ANONYMOUS_BODY_BYTES + 2 * CHUNK);
  });
});
