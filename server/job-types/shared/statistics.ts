/** The learner model's facts about points (server/learner-model), where the analyzers have always read them. */
export * from "../../learner-model/points";
