import pg from "pg";
import { verifyOutcome } from "../../scripts/chaos/verify";
import { getDb } from "@/server/db";
import { checkOutput } from "@/server/jobs/quality";
import type { SnapshotContent } from "@/server/jobs/schemas";
import type { JobType } from "@/server/generated/prisma/enums";
import { createTestJob, type Learner } from "../helpers/factories";

export const TYPES: JobType[] = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
];

/** Params that vary with `i`, so a batch covers counts, difficulties, question types and budgets. */
export function paramsFor(type: JobType, i: number): Record<string, unknown> {
  if (type === "quiz_generation") {
    const types = [["single_choice"], ["true_false", "short_answer"], ["single_choice", "true_false", "short_answer"]][
      i % 3
    ];
    return { count: 1 + (i % 8), difficulty: ["easy", "medium", "hard", "mixed"][i % 4], questionTypes: types };
  }
  if (type === "flashcard_generation") return { count: 1 + (i % 12) };
  if (type === "next_action_planning") return { timeBudgetMinutes: 15 + (i % 6) * 20 };
  return {};
}

/** Creates `n` jobs of all five types across `learners`, a few at a time. */
export async function createJobs(learners: Learner[], n: number) {
  const ids: string[] = new Array(n);
  const next = { i: 0 };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next.i++; i < n; i = next.i++) {
        const type = TYPES[i % TYPES.length]!;
        ids[i] = (await createTestJob(learners[i % learners.length]!, type, { params: paramsFor(type, i) })).id;
      }
    }),
  );
  return ids;
}

export const countStatus = (ids: string[], status: "succeeded" | "running" | "cancelled" | "pending") =>
  getDb().aiRuntimeJob.count({ where: { id: { in: ids }, status } });

/** Every job succeeded exactly once: one succeeded event, one stored result that passes the checks of its version. */
export async function expectSucceededOnce(ids: string[]) {
  const db = getDb();
  const jobs = await db.aiRuntimeJob.findMany({
    where: { id: { in: ids } },
    include: { result: true, snapshot: true },
  });
  const succeededEvents = await db.jobEvent.groupBy({
    by: ["jobId"],
    where: { jobId: { in: ids }, toStatus: "succeeded" },
    _count: true,
  });
  const problems: string[] = [];
  const eventsByJob = new Map(succeededEvents.map((e) => [e.jobId, e._count]));
  for (const job of jobs) {
    if (job.status !== "succeeded") problems.push(`${job.id}: ${job.status} ${job.errorCode ?? ""}`);
    if (eventsByJob.get(job.id) !== 1) problems.push(`${job.id}: ${eventsByJob.get(job.id) ?? 0} succeeded events`);
    const content = job.snapshot?.content as SnapshotContent | undefined;
    const check = checkOutput(job.jobType, job.result?.outputSchemaVersion ?? "v2", job.result?.output, {
      knowledgePointIds: new Set(content?.knowledgePoints.map((k) => k.id) ?? []),
      // The rules that read the snapshot (a knowledge point's passage quotes the material) need it.
      snapshot: content ?? null,
      params: job.params,
    });
    if (!check.ok) problems.push(`${job.id}: result invalid: ${check.findings.join("; ")}`);
  }
  if (jobs.length !== ids.length) problems.push(`${ids.length - jobs.length} jobs missing`);
  return { problems, jobs };
}

/**
 * What the chaos verifier finds wrong with exactly the jobs `ids` (a job lost, doubled, or ended
 * twice), read on a connection of its own to `connectionString`: empty when all is well.
 */
export async function outcomeViolations(connectionString: string, ids: string[]) {
  const db = new pg.Client({ connectionString });
  db.on("error", () => {});
  await db.connect();
  try {
    return (await verifyOutcome(db, ids.length, `j.id IN (${ids.map((id) => `'${id}'`).join(", ")})`)).violations;
  } finally {
    await db.end();
  }
}
