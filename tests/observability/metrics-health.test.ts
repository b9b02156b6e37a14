import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { GET as healthRoute } from "@/app/api/health/route";
import { health } from "@/server/observability/health";

const TOKEN = "metrics-test-token";

async function scrape(token: string | null) {
  process.env.METRICS_TOKEN = TOKEN;
  const res = await metricsRoute(
    new Request("http://localhost/api/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );
  return { status: res.status, text: await res.text() };
}

function sample(text: string, name: string, labels: Record<string, string> = {}) {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith(name) &&
        !l.startsWith("#") &&
        want.every((w) => l.includes(w)) &&
        (want.length || /^\S+ /.test(l)),
    );
  return line ? Number(line.split(" ").pop()) : null;
}

describe("/api/metrics", () => {
  it("is refused without the token or with a wrong one", async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape("nope")).status).toBe(401);
  });

  it("reports jobs by state and type, queue depth, oldest pending age, transitions, failures and endpoint latency", async () => {
    const learner = await createLearner();
    const before = await scrape(TOKEN);
    const pendingBefore = sample(before.text, "ajr_jobs", { state: "pending", job_type: "quiz_generation" }) ?? 0;
    const jobs = await Promise.all(
      [1, 2, 3].map(() => createTestJob(learner, "quiz_generation", { params: { count: 2 } })),
    );
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(jobs[0]!.id);
    await rt.fail(jobs[0]!.id, 1, "INVALID_CREDENTIAL");

    const { status, text } = await scrape(TOKEN);
    expect(status).toBe(200);
    expect(sample(text, "ajr_jobs", { state: "pending", job_type: "quiz_generation" })).toBe(pendingBefore + 2);
    expect(sample(text, "ajr_queue_depth")).toBeGreaterThanOrEqual(2);
    expect(sample(text, "ajr_oldest_pending_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "ajr_job_transitions_total", { from: "pending", to: "locked" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "ajr_job_failures_total", { code: "INVALID_CREDENTIAL" })).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "ajr_runtime_request_duration_seconds_count", { endpoint: "fail", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain('ajr_runtime_request_duration_seconds_bucket{le="0.005",endpoint="lock",status="200"}');
  });
});

describe("/api/health", () => {
  it("is 200 when the database answers and every migration is applied", async () => {
    const res = await healthRoute();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, database: "up", migrations: { pending: [] } });
  });

  it("names a migration that exists on disk but was not applied", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-"));
    fs.cpSync(path.join(process.cwd(), "prisma", "migrations"), dir, { recursive: true });
    fs.mkdirSync(path.join(dir, "29991231000000_not_applied"));
    const h = await health(dir);
    expect(h.ok).toBe(false);
    expect(h.migrations.pending).toEqual(["29991231000000_not_applied"]);
  });
});
