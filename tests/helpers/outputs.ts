import type { JobType } from "@/server/generated/prisma/enums";

/** The factory material's text (tests/helpers/factories.ts): what a knowledge_point_extraction output quotes. */
export const FACTORY_MATERIAL_TEXT = "Plants turn light, water and CO2 into glucose and oxygen.";

/**
 * A small output that passes the current (v2) schema and the API's quality rules for a learner's knowledge points
 * (a knowledge_point_extraction output quotes the factory material, its jobs' target).
 */
export function validOutput(jobType: JobType, kpIds: string[], params: Record<string, unknown> = {}) {
  const kp = kpIds[0]!;
  switch (jobType) {
    case "learning_state_analysis":
      return {
        summary: "Steady progress.",
        overallMastery: 0.6,
        engagementLevel: "medium",
        strongestKnowledgePointId: null,
        strengths: [{ knowledgePointId: kp, text: "Light reactions" }],
        risks: [{ knowledgePointId: null, text: "Calvin cycle" }],
        knowledgePoints: kpIds.map((id) => ({
          knowledgePointId: id,
          title: "KP",
          mastery: 0.5,
          confidence: 0.4,
          attempts: 3,
        })),
      };
    case "weak_point_analysis":
      return {
        weakPoints: [
          {
            knowledgePointId: kp,
            title: "Calvin cycle",
            severity: "high",
            evidence: ["2 of 3 wrong"],
            suggestedReview: "Re-read section 2",
          },
        ],
      };
    case "next_action_planning":
      return {
        actions: [
          {
            actionType: "review",
            target: { type: "knowledge_point", id: kp },
            title: "Review",
            reason: "Weak",
            priority: 1,
            estimatedMinutes: 15,
          },
        ],
      };
    case "quiz_generation": {
      const count = Number(params.count ?? 5);
      return {
        questions: Array.from({ length: count }, (_, i) => ({
          type: "single_choice",
          stem: `Question ${i + 1}?`,
          options: ["A", "B", "C"],
          answer: "B",
          explanation: "Because B.",
          knowledgePointId: kp,
          difficulty: "medium",
        })),
      };
    }
    case "flashcard_generation": {
      const count = Number(params.count ?? 10);
      return {
        flashcards: Array.from({ length: count }, (_, i) => ({
          front: `Front ${i + 1}`,
          back: "Back",
          knowledgePointId: kp,
          tags: ["bio"],
        })),
      };
    }
    case "knowledge_point_extraction": {
      const n = Math.min(Number(params.maxPoints ?? 8), 2);
      return {
        knowledgePoints: [
          {
            title: "Photosynthesis inputs",
            summary: "Light, water and CO2.",
            keyTerms: ["light", "water"],
            passage: "Plants turn light, water and CO2",
          },
          {
            title: "Photosynthesis outputs",
            summary: "Glucose and oxygen.",
            keyTerms: ["glucose"],
            passage: "into glucose and oxygen.",
          },
        ].slice(0, n),
      };
    }
  }
}

/**
 * The same output in v1, what a protocol-1 Runtime submits (docs/contract.md#versions-and-the-compatibility-promise):
 * learning-state strengths and risks as sentences, no strongest point; plans without `dueCards`.
 */
export function validV1Output(jobType: JobType, kpIds: string[], params: Record<string, unknown> = {}) {
  const v2 = validOutput(jobType, kpIds, params);
  if (jobType !== "learning_state_analysis") return v2;
  const {
    strongestKnowledgePointId: _strongest,
    strengths,
    risks,
    ...rest
  } = v2 as {
    strongestKnowledgePointId: string | null;
    strengths: { text: string }[];
    risks: { text: string }[];
  };
  return { ...rest, strengths: strengths.map((s) => s.text), risks: risks.map((r) => r.text) };
}
