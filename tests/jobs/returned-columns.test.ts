import { expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { getDb } from "@/server/db";
import { COUNTED, transition } from "@/server/jobs/state-machine";
import { createLearner, createTestJob, jobRow, uid } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";

/**
 * A transition hands back every job column unless its spec names the few it needs (`returned`):
 * the result batch reads only the usage counters' columns, so PostgreSQL formats and the app parses
 * those and the counted ones (COUNTED), not the whole row, for each stored result.
 */
it("a transition with `returned` hands back those and the counted columns only; without it, the whole row", async () => {
  const learner = await createLearner();
  try {
    const [a, b] = [await createTestJob(learner), await createTestJob(learner)];
    const cancel = (id: string, returned?: ("jobType" | "apiKeyMode")[]) =>
      transition(getDb(), {
        action: "cancelPending",
        where: Prisma.sql`j.id = ${id}`,
        to: Prisma.sql`'cancelled'`,
        set: Prisma.sql`"finishedAt" = now()::timestamp(3)`,
        actor: { type: "admin", id: uid("admin") },
        now: new Date(),
        ...(returned ? { returned } : {}),
      });
    const narrow = await cancel(a.id, ["jobType", "apiKeyMode"]);
    expect(narrow).toHaveLength(1);
    expect(Object.keys(narrow[0]!).sort()).toEqual([...COUNTED, "jobType", "apiKeyMode", "notified"].sort());
    expect(narrow[0]).toMatchObject({
      id: a.id,
      status: "cancelled",
      fromStatus: "pending",
      jobType: "learning_state_analysis",
    });
    const whole = await cancel(b.id);
    expect(Object.keys(whole[0]!)).toEqual(expect.arrayContaining(["userId", "params", "createdAt", "attemptNo"]));
    // The narrow transition still wrote its event as every transition does.
    expect((await jobRow(a.id)).events.at(-1)).toMatchObject({ fromStatus: "pending", toStatus: "cancelled" });
  } finally {
    await releaseJobsOf([learner]);
  }
});
