/** The learner model's facts about points (server/learning/learner-model), where the analyzers have always read them. */
export * from "../../learning/learner-model/points";
