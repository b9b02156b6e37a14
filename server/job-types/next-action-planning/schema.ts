import { z } from "zod";
import { id, text } from "../fields";
import { catalogueEntry } from "../define";

export const nextActionsSchema = z.strictObject({
  actions: z
    .array(
      z.strictObject({
        actionType: z.enum(["review", "practice", "learn_new", "rest"]),
        target: z.strictObject({ type: z.enum(["knowledge_point", "material", "none"]), id: id.nullable() }),
        title: text(300),
        reason: text(1000),
        priority: z.number().int().min(1).max(5),
        estimatedMinutes: z.number().int().min(1).max(600),
      }),
    )
    .min(1)
    .max(20),
});
export type NextActions = z.infer<typeof nextActionsSchema>;

export const nextActionParamsSchema = z.strictObject({
  /** Minutes the learner has for the plan; the plan fits inside it. */
  timeBudgetMinutes: z.number().int().min(10).max(600).default(60),
});
export type NextActionParams = z.infer<typeof nextActionParamsSchema>;

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const nextActionPlanningEntry = catalogueEntry({
  label: { title: "Next steps", blurb: "A short plan of what to do next, with time estimates." },
  params: nextActionParamsSchema,
  output: { version: "v1", schema: nextActionsSchema },
  qualityRules: {
    target_id_required: "An action whose `target.type` is not `none` names its target's `id`.",
  },
});
