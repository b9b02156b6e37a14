import { defineJobType } from "../define";
import { planNextActions } from "./analyse";
import { nextActionPlanningEntry } from "./schema";

export * from "./schema";

export const nextActionPlanning = defineJobType({
  ...nextActionPlanningEntry,
  quality(v, check) {
    v.actions.forEach((a, i) => {
      if (a.target.type === "knowledge_point" && a.target.id && !check.knowledgePointIds.has(a.target.id))
        check.add(
          `actions.${i}.target.id`,
          "knowledge_point_unknown",
          `knowledgePointId ${a.target.id} is not in the snapshot`,
        );
      if (a.target.type !== "none" && !a.target.id)
        check.add(`actions.${i}.target`, "target_id_required", "id is required");
    });
  },
  qualityChecks(v, { params }) {
    const total = v.actions.reduce((s, a) => s + a.estimatedMinutes, 0);
    const budget = Number(params.timeBudgetMinutes);
    return total > budget ? [`actions: ${total} minutes planned, the budget is ${budget}`] : [];
  },
  prompt: {
    task: "Plan the learner's next study actions (review, practice, learn_new or rest) from the reviews that are due, their weak points, the time since they last studied and their time budget. When the snapshot has `reviews`, first schedule a review action for every knowledge point with due cards (`dueCards`, about a minute per card), the points being forgotten (cards forgotten at their latest review, low `retrievability`) before the others. The estimated minutes of all actions together must fit in the budget.",
    rules: (params) => [`The time budget is ${params.timeBudgetMinutes} minutes.`],
  },
  analyse: (snapshot, params, asOf, locale) => planNextActions(snapshot, params, asOf, locale),
});
