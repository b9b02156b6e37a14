import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";

// The server and this process (which signs the learner in) share one auth secret.
process.env.BETTER_AUTH_SECRET ??= crypto.randomBytes(32).toString("base64url");

const MB = 1024 * 1024;
let app: AppServer;
let cookie = "";

beforeAll(async () => {
  app = await startAppServer({
    databaseUrl: process.env.DATABASE_URL!,
    env: { BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET! },
  });
  const learner = await createLearner();
  const password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
  cookie = await signedInCookie(learner.user.email, password);
});
afterAll(async () => {
  await app?.stop();
});

/** The production server's own process (production-server.mjs on this port), for its resident memory. */
function serverRssMb(): number {
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmd = "";
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    } catch {
      continue;
    }
    if (cmd.includes("production-server.mjs") && cmd.includes(`-p ${app.port}`) && !cmd.startsWith("flock")) {
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      if (rss) return Number(rss[1]) / 1024;
    }
  }
  throw new Error("app server process not found");
}

/**
 * POSTs `totalBytes` over a real socket, produced only as fast as the server takes them. Resolves
 * with the status and how many bytes the server had accepted when it answered.
 */
async function oversizedPost(
  path: string,
  totalBytes: number,
  declareLength: boolean,
): Promise<{ status: number; sentMb: number }> {
  // The server answers 413 and closes without reading the rest; a client still writing may see the
  // close (EPIPE / ECONNRESET) before it has parsed the answer. That race is the client's, so it asks
  // again (at most three times) rather than count a refusal it could not read.
  for (let attempt = 1; ; attempt++) {
    try {
      return await postOnce(path, totalBytes, declareLength);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== "EPIPE" && code !== "ECONNRESET")) throw e;
    }
  }
}

function postOnce(
  path: string,
  totalBytes: number,
  declareLength: boolean,
): Promise<{ status: number; sentMb: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let answered = false;
    const req = http.request(`${app.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie,
        origin: app.url,
        ...(declareLength ? { "content-length": String(totalBytes) } : {}),
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer after ${(sent / MB).toFixed(1)} MB sent`));
    }, 60_000);
    req.on("response", (res) => {
      answered = true;
      clearTimeout(timer);
      resolve({ status: res.statusCode!, sentMb: sent / MB });
      req.destroy();
    });
    req.on("error", (e) => (answered ? undefined : reject(e)));
    const pump = () => {
      while (!answered && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("body limit over real HTTP (production server)", { timeout: 300_000 }, () => {
  it("150 MB POSTs to jobs.create and sign-in are refused with 413 long before they are sent; the server's memory stays flat", async () => {
    await oversizedPost("/api/trpc/jobs.create", 2 * MB, true); // warm the route
    const before = serverRssMb();
    const seen: { status: number; sentMb: number }[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push(await oversizedPost("/api/trpc/jobs.create", 150 * MB, i % 2 === 0));
      seen.push(await oversizedPost("/api/auth/sign-in/email", 150 * MB, i % 2 === 1));
    }
    const after = serverRssMb();
    console.log(
      `[body-limit/http] statuses ${seen.map((s) => s.status).join(",")}; MB sent before the answer: ${seen.map((s) => s.sentMb.toFixed(1)).join(", ")}; server RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`,
    );
    expect(seen.every((s) => s.status === 413)).toBe(true);
    // The answer came while most of each body was still unsent (socket buffers hold a few MB).
    expect(Math.max(...seen.map((s) => s.sentMb))).toBeLessThan(32);
    expect(after - before).toBeLessThan(100);
    // The server is healthy afterwards.
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
  });
});
