import { getDb } from "../db";
import { now } from "../clock";
import { activeCards, leftToday } from "./cards";
import { localMidnight, validTimeZone } from "./day";

export type FirstStep = { jobId: string; index: number; title: string; estimatedMinutes: number };

/**
 * What brings the learner back today: the cards due by the end of their local day (not suspended,
 * not buried) that the daily limits still let them review, counted as the Review view counts
 * (leftToday), and the first step of their latest plan they have not ticked yet. The learner
 * page's top line and the daily digest read it.
 */
export async function todayFor(userId: string, timeZone?: string | null) {
  const at = now();
  const zone = validTimeZone(timeZone);
  const endOfDay = localMidnight(at, zone, 1);
  const db = getDb();
  const [{ left }, plan] = await Promise.all([
    leftToday(userId, { AND: [activeCards(userId, at), { due: { lt: endOfDay } }] }, localMidnight(at, zone)),
    db.aiRuntimeJob.findFirst({
      where: { userId, jobType: "next_action_planning", status: "succeeded" },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, result: { select: { output: true } } },
    }),
  ]);
  let firstStep: FirstStep | null = null;
  const actions = (plan?.result?.output as { actions?: { title?: unknown; estimatedMinutes?: unknown }[] } | null)
    ?.actions;
  if (plan && Array.isArray(actions)) {
    const ticked = new Set(
      (await db.nextActionTick.findMany({ where: { userId, jobId: plan.id }, select: { actionIndex: true } })).map(
        (t) => t.actionIndex,
      ),
    );
    const index = actions.findIndex((_, i) => !ticked.has(i));
    const step = actions[index];
    if (step && typeof step.title === "string")
      firstStep = {
        jobId: plan.id,
        index,
        title: step.title,
        estimatedMinutes: typeof step.estimatedMinutes === "number" ? step.estimatedMinutes : 0,
      };
  }
  return { dueCards: left.new + left.learning + left.review, firstStep };
}
