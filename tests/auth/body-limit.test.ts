import { describe, expect, it } from "vitest";
import { POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { POST as authPost } from "@/app/api/auth/[...all]/route";
import { webSecurityConfig } from "@/server/config";
import { APP_URL, setPassword, signedInCookie, uniqueIp } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";

const MB = 1024 * 1024;

/** A body that is produced only as fast as it is read, counting what the server pulled. */
function streamedBody(totalBytes: number) {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= totalBytes) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, state };
}

function post(
  handler: (req: Request) => Promise<Response>,
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
) {
  return handler(
    new Request(`${APP_URL}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP_URL, "x-forwarded-for": uniqueIp(), ...headers },
      body,
      duplex: "half",
    } as RequestInit),
  );
}

const doors = [
  ["tRPC jobs.create", (req: Request) => trpcPost(req), "/api/trpc/jobs.create"],
  ["auth sign-in", (req: Request) => authPost(req), "/api/auth/sign-in/email"],
] as const;

describe("request body limit on the tRPC and auth routes", { timeout: 120_000 }, () => {
  it.each(doors)(
    "%s: a declared oversized body is refused with 413 before a byte is read",
    async (_name, handler, path) => {
      const { stream, state } = streamedBody(150 * MB);
      const res = await post(handler, path, stream, { "content-length": String(150 * MB) });
      expect(res.status).toBe(413);
      const body = await res.json();
      expect(body.error).toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        details: { limitBytes: webSecurityConfig.maxBodyBytes },
      });
      expect(typeof body.error.message).toBe("string");
      // At most what the stream buffers ahead of the first read.
      expect(state.pulled).toBeLessThanOrEqual(128 * 1024);
    },
  );

  it.each(doors)(
    "%s: a chunked body with no length is read only until it passes the limit",
    async (_name, handler, path) => {
      const { stream, state } = streamedBody(150 * MB);
      const res = await post(handler, path, stream);
      expect(res.status).toBe(413);
      expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
      expect(state.pulled).toBeLessThan(webSecurityConfig.maxBodyBytes + 256 * 1024);
    },
  );

  it("memory stays flat under repeated 150 MB posts from a signed-in learner", async () => {
    const learner = await createLearner();
    const password = `pw-${uid()}`;
    await setPassword(learner.user.id, password);
    const cookie = await signedInCookie(learner.user.email, password);
    const send = async () => {
      const { stream, state } = streamedBody(150 * MB);
      const res = await post(trpcPost, "/api/trpc/jobs.create", stream, { cookie });
      expect(res.status).toBe(413);
      await res.arrayBuffer();
      return state.pulled;
    };
    await send();
    global.gc?.();
    const before = process.memoryUsage();
    let pulled = 0;
    for (let i = 0; i < 20; i++) pulled += await send();
    global.gc?.();
    const after = process.memoryUsage();
    const grewMb = (after.rss - before.rss) / MB;
    const heapGrewMb = (after.heapUsed - before.heapUsed) / MB;
    console.log(
      `[body-limit] 20 x 150 MB posts: ${(pulled / MB).toFixed(1)} MB read in all, rss +${grewMb.toFixed(1)} MB, heap +${heapGrewMb.toFixed(1)} MB`,
    );
    // 3,000 MB offered; reading them would grow the process by hundreds of MB.
    expect(pulled).toBeLessThan(20 * (webSecurityConfig.maxBodyBytes + 256 * 1024));
    expect(grewMb).toBeLessThan(64);
    expect(heapGrewMb).toBeLessThan(32);
  });

  it("a body under the limit still works (the route reads what it was given)", async () => {
    const learner = await createLearner();
    const password = `pw-${uid()}`;
    await setPassword(learner.user.id, password);
    const res = await post(
      authPost,
      "/api/auth/sign-in/email",
      JSON.stringify({ email: learner.user.email, password, padding: "x".repeat(512 * 1024) }),
    );
    expect(res.status).toBe(200);
  });
});
