import { getDb } from "../db";
import { AppError } from "../errors";
import { nextActionsSchema } from "../jobs/schemas";
import { ownJobOutput } from "./own-output";

/** The plan of one of the learner's own succeeded next-step jobs; anything else is not found. */
async function ownPlanSize(userId: string, jobId: string): Promise<number> {
  const words = { otherType: "this job did not plan next steps", noResult: "this plan has no steps yet" };
  return nextActionsSchema.parse(await ownJobOutput(userId, jobId, "next_action_planning", words)).actions.length;
}

async function ticked(userId: string, jobId: string) {
  const rows = await getDb().nextActionTick.findMany({
    where: { userId, jobId },
    select: { actionIndex: true },
    orderBy: { actionIndex: "asc" },
  });
  return rows.map((r) => r.actionIndex);
}

export async function getNextActionTicks(userId: string, jobId: string) {
  await ownPlanSize(userId, jobId);
  return { jobId, done: await ticked(userId, jobId) };
}

/**
 * Ticks a step (by its index in the plan as stored) or unticks it. Idempotent, and safe when two
 * tabs click at once: the insert ignores a tick that already exists.
 */
export async function setNextActionTick(userId: string, jobId: string, actionIndex: number, done: boolean) {
  const size = await ownPlanSize(userId, jobId);
  if (actionIndex >= size) throw new AppError("INVALID_REQUEST", `the plan has ${size} steps`);
  const db = getDb();
  if (done) {
    await db.$executeRaw`
      INSERT INTO "NextActionTick" ("userId", "jobId", "actionIndex") VALUES (${userId}, ${jobId}, ${actionIndex})
      ON CONFLICT DO NOTHING`;
  } else {
    await db.nextActionTick.deleteMany({ where: { userId, jobId, actionIndex } });
  }
  return { jobId, done: await ticked(userId, jobId) };
}
