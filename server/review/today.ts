import { getDb } from "../db";
import { now } from "../clock";
import { cardFacts } from "../learner-model/cards";

export type FirstStep = {
  jobId: string;
  index: number;
  title: string;
  estimatedMinutes: number;
  /** The plan was stored degraded (it broke a quality or evidence rule): shown flagged, never as fact. */
  degraded: boolean;
};

type Action = { title?: unknown; estimatedMinutes?: unknown; priority?: unknown };

/**
 * The plan's first step not yet ticked, as the plan shows its steps: by priority (1 first), then
 * by the order stored. `index` is the step's place in the stored plan (what a tick names).
 */
export function firstStepOf(actions: Action[], ticked: Set<number>): { index: number; action: Action } | null {
  const order = actions
    .map((action, index) => ({ action, index, p: typeof action.priority === "number" ? action.priority : 5 }))
    .sort((a, b) => a.p - b.p || a.index - b.index);
  return order.find((x) => !ticked.has(x.index) && typeof x.action.title === "string") ?? null;
}

/**
 * What brings the learner back today, from the learner model (cardFacts): the cards Review
 * offers now and those that fall due later in her day, under today's limits, suspended and buried
 * cards left out; and the first step of her latest plan she has not ticked yet (by priority), with
 * whether that plan was stored degraded. The learner page's top line and the daily digest read it.
 */
export async function todayFor(userId: string, timeZone?: string | null) {
  const at = now();
  const db = getDb();
  const [facts, plan] = await Promise.all([
    cardFacts(userId, { at, timeZone }),
    db.aiRuntimeJob.findFirst({
      where: { userId, jobType: "next_action_planning", status: "succeeded" },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, result: { select: { output: true, degraded: true } } },
    }),
  ]);
  let firstStep: FirstStep | null = null;
  const actions = (plan?.result?.output as { actions?: Action[] } | null)?.actions;
  if (plan && Array.isArray(actions)) {
    const ticked = new Set(
      (await db.nextActionTick.findMany({ where: { userId, jobId: plan.id }, select: { actionIndex: true } })).map(
        (t) => t.actionIndex,
      ),
    );
    const first = firstStepOf(actions, ticked);
    if (first)
      firstStep = {
        jobId: plan.id,
        index: first.index,
        title: first.action.title as string,
        estimatedMinutes: typeof first.action.estimatedMinutes === "number" ? first.action.estimatedMinutes : 0,
        degraded: plan.result?.degraded ?? false,
      };
  }
  return { now: facts.now.total, laterToday: facts.laterToday, firstStep };
}
