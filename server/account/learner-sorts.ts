/** The figures the console's Learners page sorts by (browser-safe: no server imports). */
export const LEARNER_SORTS = ["newest", "lastActive", "due", "overdue", "forgotten", "jobs", "cost"] as const;
export type LearnerSort = (typeof LEARNER_SORTS)[number];
