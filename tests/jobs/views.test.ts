import { describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { getDb } from "@/server/db";
import { HIDDEN_JOB_COLUMNS, JOB_VIEW_COLUMNS, toJobView } from "@/server/jobs/views";
import { createLearner, createTestJob } from "../helpers/factories";

describe("the job view", () => {
  it("is every column of the model but the hidden ones, and never a relation a query included", async () => {
    const all = Object.values(Prisma.AiRuntimeJobScalarFieldEnum);
    expect([...JOB_VIEW_COLUMNS, ...HIDDEN_JOB_COLUMNS].sort()).toEqual([...all].sort());
    const learner = await createLearner();
    const job = await createTestJob(learner, "quiz_generation");
    const row = await getDb().aiRuntimeJob.findUniqueOrThrow({
      where: { id: job.id },
      include: { events: true, result: true, user: true },
    });
    const view = toJobView(row);
    expect(Object.keys(view).sort()).toEqual([...JOB_VIEW_COLUMNS, "resultId"].sort());
    for (const hidden of [...HIDDEN_JOB_COLUMNS, "events", "user", "result"]) expect(view).not.toHaveProperty(hidden);
    expect(view).toMatchObject({ id: job.id, jobType: "quiz_generation", params: row.params, resultId: null });
  });
});
