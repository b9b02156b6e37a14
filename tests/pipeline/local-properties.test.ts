import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paramsSchemas, snapshotContentSchema, type JobTypeName, type SnapshotContent } from "@/server/jobs/schemas";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { localProvider } from "@/server/providers/local";
import { LOCALES } from "@/server/i18n/locales";
import { AS_OF } from "./fixtures";

const ids = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/), { minLength: 1, maxLength: 6 });
const words = fc.array(
  fc.constantFrom(
    "light",
    "water",
    "energy",
    "carbon",
    "enzyme",
    "membrane",
    "glucose",
    "the",
    "of",
    "Ätherisch",
    "光合作用",
    "叶绿素吸收光能。",
    "二氧化碳！",
    "𠀀𠀁",
    "👩🏽‍🔬",
  ),
  {
    minLength: 0,
    maxLength: 30,
  },
);

/** One knowledge point's review evidence (snapshot.reviews), any mix of counts and recall. */
const reviewArb = fc.record({
  cards: fc.integer({ min: 1, max: 400 }),
  dueCards: fc.integer({ min: 0, max: 400 }),
  reviews: fc.integer({ min: 0, max: 50 }),
  again: fc.integer({ min: 0, max: 50 }),
  forgotten: fc.integer({ min: 0, max: 5 }),
  lapses: fc.integer({ min: 0, max: 9 }),
  retrievability: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  day: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
});

/** Arbitrary but valid snapshots: odd titles, empty descriptions, shared descriptions, no history, any review evidence or none. */
const snapshotArb: fc.Arbitrary<SnapshotContent> = ids.chain((kpIds) =>
  fc
    .record({
      titles: fc.array(fc.oneof(fc.constant(""), fc.constant("Same"), fc.string({ maxLength: 40 })), {
        minLength: kpIds.length,
        maxLength: kpIds.length,
      }),
      descriptions: fc.array(
        fc.oneof(
          fc.constant(""),
          fc.constant("Shared description."),
          words.map((w) => w.join(" ")),
        ),
        {
          minLength: kpIds.length,
          maxLength: kpIds.length,
        },
      ),
      content: words.map((w) => w.join(" ") + ". " + w.reverse().join(" ") + "."),
      attempts: fc.array(
        fc.record({ kp: fc.nat(kpIds.length - 1), correct: fc.boolean(), day: fc.integer({ min: 1, max: 30 }) }),
        { maxLength: 20 },
      ),
      sessions: fc.array(
        fc.record({ day: fc.integer({ min: 1, max: 30 }), minutes: fc.integer({ min: 0, max: 200 }) }),
        { maxLength: 5 },
      ),
      reviews: fc.option(
        fc.array(fc.option(reviewArb, { nil: null }), { minLength: kpIds.length, maxLength: kpIds.length }),
        { nil: null },
      ),
    })
    .map(({ titles, descriptions, content, attempts, sessions, reviews }) =>
      snapshotContentSchema.parse({
        version: 1,
        learner: { id: "u", name: "" },
        target: { type: "user", id: "u", title: "" },
        materials: [{ id: "m", title: "Material", content }],
        knowledgePoints: kpIds.map((id, i) => ({
          id,
          title: titles[i]!,
          description: descriptions[i]!,
          materialId: i % 2 ? null : "m",
        })),
        quizAttempts: attempts.map((a) => ({
          knowledgePointId: kpIds[a.kp]!,
          question: `q${a.day}`,
          correct: a.correct,
          answeredAt: new Date(Date.UTC(2026, 10, a.day)).toISOString(),
        })),
        studySessions: sessions.map((s) => ({
          materialId: "m",
          startedAt: new Date(Date.UTC(2026, 10, s.day)).toISOString(),
          minutes: s.minutes,
        })),
        ...(reviews?.some(Boolean)
          ? {
              reviews: {
                asOf: new Date(Date.UTC(2026, 11, 1)).toISOString(),
                knowledgePoints: kpIds.flatMap((id, i) => {
                  const r = reviews[i];
                  if (!r) return [];
                  const { day, ...counts } = r;
                  return [
                    {
                      knowledgePointId: id,
                      ...counts,
                      lastReviewedAt: day === null ? null : new Date(Date.UTC(2026, 10, day)).toISOString(),
                    },
                  ];
                }),
              },
            }
          : {}),
      }),
    ),
);

const quizParams = fc.record({
  count: fc.integer({ min: 1, max: 20 }),
  difficulty: fc.constantFrom("easy", "medium", "hard", "mixed"),
  questionTypes: fc.shuffledSubarray(["single_choice", "true_false", "short_answer"], { minLength: 1 }),
});

describe("the local analyzer on arbitrary snapshots", () => {
  type Case = readonly [JobTypeName, Record<string, unknown>];
  /** Every case through the pipeline with the local analyzer: accepted at once, never degraded. */
  const neverDegraded = (cases: (quiz: Record<string, unknown>, cards: number, budget: number) => Case[]) =>
    fc.assert(
      fc.asyncProperty(
        snapshotArb,
        quizParams,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 10, max: 600 }),
        fc.constantFrom(...LOCALES),
        async (snapshot, quiz, cards, budget, locale) => {
          for (const [jobType, raw] of cases(quiz, cards, budget)) {
            const params = paramsSchemas[jobType].parse(raw);
            const result = await runPipeline(
              { jobType, params, snapshot, asOf: AS_OF, locale },
              { provider: localProvider() },
            );
            expect(result.degraded, `${locale} ${jobType}: ${result.findings.join("; ")}`).toBe(false);
            expect(result.qualityLoops).toBe(0);
          }
        },
      ),
      { numRuns: 60, seed: 20261130 },
    );

  it("passes the API's checks, the pipeline's own review and the evidence rules for the analyses in every language, never degraded", async () => {
    await neverDegraded((_quiz, _cards, budget) => [
      ["learning_state_analysis", {}],
      ["weak_point_analysis", {}],
      ["next_action_planning", { timeBudgetMinutes: budget }],
    ]);
  });

  it("passes them for quizzes and decks in every language, never degraded", async () => {
    await neverDegraded((quiz, cards) => [
      ["quiz_generation", quiz],
      ["flashcard_generation", { count: cards }],
    ]);
  });
});
