import { getDb } from "@/server/db";
import { analyse } from "@/server/providers/local";
import { encryptSecret } from "@/server/security/secret-box";
import { createLearner, createTestJob, jobRow, type Learner } from "../helpers/factories";
import { startFakeOpenAI, type Reply } from "../providers/fake-openai-server";
import { eventually } from "../helpers/eventually";
import type { JobType } from "@/server/generated/prisma/enums";

/**
 * A learner with one job under test (weak_point_analysis unless `jobType` says otherwise, answered
 * by the fake's script; `good` is a valid answer for it) and other jobs (flashcard_generation,
 * answered well by the fake's route) that must keep flowing through the same executor while the
 * first one meets a misbehaving provider.
 */
export async function faultScene(
  script: (good: string) => Reply[],
  opts: { maxRetryCount?: number; others?: number; userKey?: string; jobType?: JobType } = {},
) {
  const jobType = opts.jobType ?? "weak_point_analysis";
  // The route answers flashcard prompts: a flashcard job under test would never reach the script.
  if (jobType === "flashcard_generation" && opts.others !== 0)
    throw new Error("a flashcard_generation job under test needs others: 0");
  const learner: Learner = await createLearner();
  if (opts.userKey) {
    await getDb().userCredential.create({
      data: { userId: learner.user.id, ciphertext: encryptSecret(opts.userKey), last4: opts.userKey.slice(-4) },
    });
  }
  const job = await createTestJob(learner, jobType, {
    maxRetryCount: opts.maxRetryCount ?? 3,
    ...(opts.userKey ? { apiKeyMode: "user_deepseek_key" as const } : {}),
  });
  const others = await Promise.all(
    Array.from({ length: opts.others ?? 3 }, () => createTestJob(learner, "flashcard_generation")),
  );
  const row = await jobRow(job.id);
  const snapshot = await getDb().snapshot.findUniqueOrThrow({ where: { id: row.snapshotId! } });
  const good = JSON.stringify(analyse(jobType, snapshot.content as never, row.params as never, snapshot.createdAt));
  const cardParams = others[0] ? (await jobRow(others[0].id)).params : { count: 10 };
  const cards = JSON.stringify(
    analyse("flashcard_generation", snapshot.content as never, cardParams as never, snapshot.createdAt),
  );
  const fake = await startFakeOpenAI(script(good), {
    route: (body) =>
      others.length && JSON.stringify(body.messages).includes("Write flashcards") ? { content: cards } : undefined,
  });
  return {
    learner,
    job,
    others,
    fake,
    good,
    /** Calls for the job under test, with their arrival times. */
    calls: () => fake.requests.filter((r) => !r.routed),
    /** The failure code each ended attempt of the job under test recorded, in order. */
    async codes() {
      const r = await jobRow(job.id);
      return r.events.filter((e) => e.errorCode && e.actorType === "runtime").map((e) => e.errorCode);
    },
    async finished() {
      return eventually(
        `job ${job.id} finished`,
        async () => {
          const r = await jobRow(job.id);
          return ["succeeded", "failed", "cancelled"].includes(r.status) ? r : null;
        },
        60_000,
      );
    },
    async othersSucceeded() {
      return eventually(
        "the other jobs succeeded",
        async () => {
          const rows = await Promise.all(others.map((o) => jobRow(o.id)));
          return rows.every((r) => r.status === "succeeded") ? rows : null;
        },
        60_000,
      );
    },
    usage: () => getDb().jobUsage.findMany({ where: { jobId: job.id }, orderBy: { attemptNo: "asc" } }),
  };
}

/** Gaps in ms between consecutive calls. */
export const gaps = (calls: { at: number }[]) => calls.slice(1).map((c, i) => c.at - calls[i]!.at);
