import type { SnapshotContent } from "@/server/jobs/schemas";

export const AS_OF = new Date("2026-11-20T12:00:00.000Z");
const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 10, day, hour)).toISOString();

/**
 * A small learner whose statistics are worked out by hand in the tests:
 * - kp_a: right, right, right            → mastery 1, confidence 0.5
 * - kp_b: right, wrong, wrong (newest)   → (0.49)/(1+0.7+0.49) = 0.224, 2 recent errors
 * - kp_c: wrong, right (newest)          → 1/(1+0.7) = 0.588, confidence 0.4
 * - kp_d: never answered
 */
export function smallSnapshot(): SnapshotContent {
  return {
    version: 1,
    learner: { id: "u1", name: "Ada" },
    target: { type: "user", id: "u1", title: "Ada" },
    materials: [
      {
        id: "m1",
        title: "Photosynthesis",
        content:
          "Photosynthesis turns light energy into chemical energy. In the light-dependent reactions, chlorophyll in the thylakoid membranes absorbs light, splits water and releases oxygen. In the Calvin cycle, in the stroma, the enzyme RuBisCO fixes carbon dioxide to build glucose. Limiting factors are light intensity, carbon dioxide concentration and temperature.",
      },
    ],
    knowledgePoints: [
      {
        id: "kp_a",
        title: "Light reactions",
        description: "Chlorophyll absorbs light, splits water and releases oxygen.",
        materialId: "m1",
      },
      {
        id: "kp_b",
        title: "Calvin cycle",
        description: "RuBisCO fixes carbon dioxide in the stroma to build glucose.",
        materialId: "m1",
      },
      {
        id: "kp_c",
        title: "Limiting factors",
        description: "Light intensity, carbon dioxide and temperature limit the rate.",
        materialId: "m1",
      },
      {
        id: "kp_d",
        title: "Chlorophyll",
        description: "The green pigment that captures light energy.",
        materialId: "m1",
      },
    ],
    // Newest first, as snapshots store them.
    quizAttempts: [
      { knowledgePointId: "kp_a", question: "What does chlorophyll absorb?", correct: true, answeredAt: at(19) },
      { knowledgePointId: "kp_b", question: "Where does the Calvin cycle run?", correct: false, answeredAt: at(19) },
      { knowledgePointId: "kp_a", question: "What is released?", correct: true, answeredAt: at(18) },
      { knowledgePointId: "kp_b", question: "What does RuBisCO fix?", correct: false, answeredAt: at(18) },
      { knowledgePointId: "kp_a", question: "Where are the light reactions?", correct: true, answeredAt: at(17) },
      { knowledgePointId: "kp_b", question: "What does the cycle build?", correct: true, answeredAt: at(16) },
      { knowledgePointId: "kp_c", question: "Name a limiting factor.", correct: true, answeredAt: at(12) },
      { knowledgePointId: "kp_c", question: "Does temperature limit the rate?", correct: false, answeredAt: at(10) },
    ],
    studySessions: [
      { materialId: "m1", startedAt: at(19, 10), minutes: 45 },
      { materialId: "m1", startedAt: at(1, 10), minutes: 30 },
    ],
  };
}

/** A snapshot with one knowledge point and a one-sentence material: the hardest case for unique questions. */
export function tinySnapshot(): SnapshotContent {
  return {
    version: 1,
    learner: { id: "u2", name: "Bo" },
    target: { type: "knowledge_point", id: "kp_x", title: "Osmosis" },
    materials: [{ id: "m2", title: "Cells", content: "Osmosis moves water across a membrane." }],
    knowledgePoints: [{ id: "kp_x", title: "Osmosis", description: "", materialId: "m2" }],
    quizAttempts: [],
    studySessions: [],
  };
}

/** smallSnapshot() as captured for its material m1 (the target of a knowledge_point_extraction job). */
export function materialSnapshot(): SnapshotContent {
  return { ...smallSnapshot(), target: { type: "material", id: "m1", title: "Photosynthesis" } };
}
