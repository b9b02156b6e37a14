import { expect, it } from "vitest";
import { getDb } from "@/server/db";
import { now } from "@/server/clock";
import { claimSpec, lostLeasesSpec } from "@/server/jobs/lease";
import { transition } from "@/server/jobs/state-machine";
import { createLearner, createTestJob } from "./helpers/factories";

it("claim cycle cost with and without the passed-lease check", async () => {
  const db = getDb();
  const l = await createLearner();
  const job = await createTestJob(l);
  await db.$executeRawUnsafe(`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt")
    SELECT 'q_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", 'pending', "inputHash", 'q-' || g, params, "runAfter", "createdAt" + g * interval '1 millisecond', "updatedAt"
    FROM "AiRuntimeJob", generate_series(1, 4000) g WHERE id = '${job.id}'`);
  await db.$executeRawUnsafe(`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt", "lockedBy", "lockedAt", "lockUntil", "attemptNo")
    SELECT 'h_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", 'running', "inputHash", 'h-' || g, params, "runAfter", "createdAt", "updatedAt", 'rt', now() - (g % 120) * interval '1 second', now() + interval '1 minute', 1
    FROM "AiRuntimeJob", generate_series(1, 200) g WHERE id = '${job.id}'`);
  await db.$executeRawUnsafe(`ANALYZE "AiRuntimeJob"`);
  const input = { runtimeInstanceId: "bench", capabilities: ["learning_state_analysis" as const], limit: 1 };
  const times = { with: [] as number[], without: [] as number[] };
  for (let i = 0; i < 1200; i++) {
    const withCheck = i % 2 === 0;
    const at = now();
    const t = performance.now();
    const rows = withCheck
      ? await transition(db, claimSpec(input, at), lostLeasesSpec(at, 1, "claim"))
      : await transition(db, claimSpec(input, at));
    times[withCheck ? "with" : "without"].push(performance.now() - t);
    expect(rows).toHaveLength(1);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const p90 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.9)]!;
  console.log(
    `[claim-cost] median with check ${med(times.with).toFixed(3)} ms, without ${med(times.without).toFixed(3)} ms, ratio ${(med(times.with) / med(times.without)).toFixed(3)}; p90 ${p90(times.with).toFixed(3)} / ${p90(times.without).toFixed(3)}`,
  );
}, 300_000);
