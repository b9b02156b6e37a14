import { describe, expect, it } from "vitest";
import { LEARNERS, MATERIALS } from "@/prisma/seed-data";
import { checkOutput } from "@/server/jobs/quality";
import { paramsSchemas, type SnapshotContent } from "@/server/jobs/schemas";
import { analyse } from "@/server/providers/local";
import { sentences } from "@/server/job-types/shared/text";
import { negate } from "@/server/job-types/shared/items";
import { AS_OF } from "./fixtures";

type Q = { type: string; stem: string; options: string[]; answer: string; knowledgePointId: string };

/** A demo learner's snapshot, as the app would capture it for "everything": all their materials. */
function demoSnapshot(learnerId: string): SnapshotContent {
  const learner = LEARNERS.find((l) => l.id === learnerId)!;
  const materials = MATERIALS.filter((m) => learner.materials.includes(m.id));
  return {
    version: 1,
    learner: { id: learner.id, name: learner.name },
    target: { type: "user", id: learner.id, title: learner.name },
    materials: materials.map((m) => ({ id: m.id, title: m.title, content: m.content })),
    knowledgePoints: materials.flatMap((m) => m.kps.map((k) => ({ ...k, materialId: m.id }))),
    quizAttempts: Object.entries(learner.history).flatMap(([kpId, answers]) =>
      answers.map((correct, i) => ({
        knowledgePointId: kpId,
        question: `Q${i} ${kpId}`,
        correct,
        answeredAt: new Date(AS_OF.getTime() - (answers.length - i) * 86_400_000).toISOString(),
      })),
    ),
    studySessions: [],
  };
}

/** Every text a material contributes: its knowledge points' titles and descriptions and its sentences. */
function textsOf(materialId: string) {
  const m = MATERIALS.find((x) => x.id === materialId)!;
  return new Set(
    [...m.kps.flatMap((k) => [k.title, k.description]), ...sentences(m.content)].map((s) => s.toLowerCase()),
  );
}

/** Whether `option` is `text` with some words hidden by "_____". */
const fits = (option: string, text: string) =>
  new RegExp(
    `^${option
      .toLowerCase()
      .split("_____")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".+?")}$`,
    "u",
  ).test(text);

describe("local analyzer: quiz distractors on the demo data", () => {
  for (const learnerId of ["user_ada", "user_ben"]) {
    for (const difficulty of ["easy", "medium", "hard"] as const) {
      it(`${learnerId}, ${difficulty}: every wrong option comes from the question's own material, never another subject`, () => {
        const snap = demoSnapshot(learnerId);
        const params = paramsSchemas.quiz_generation.parse({
          count: 12,
          difficulty,
          questionTypes: ["single_choice", "true_false"],
        });
        const out = analyse("quiz_generation", snap, params, AS_OF) as { questions: Q[] };
        expect(
          checkOutput("quiz_generation", "v1", out, {
            knowledgePointIds: new Set(snap.knowledgePoints.map((k) => k.id)),
            params,
          }),
        ).toMatchObject({ ok: true });

        const materialOf = new Map(snap.knowledgePoints.map((k) => [k.id, k.materialId!]));
        let checked = 0;
        for (const q of out.questions) {
          const own = materialOf.get(q.knowledgePointId)!;
          const foreign = snap.materials.filter((m) => m.id !== own).flatMap((m) => [...textsOf(m.id)]);
          if (q.type === "true_false") {
            // A false claim is another point of the same material, never another subject's.
            for (const f of foreign) expect(q.stem.toLowerCase(), q.stem).not.toContain(f);
            continue;
          }
          for (const option of q.options.filter((o) => o !== q.answer)) {
            expect(foreign, `"${option}" in "${q.stem}"`).not.toContain(option.toLowerCase());
            checked++;
          }
        }
        expect(checked).toBeGreaterThan(0);
      });
    }
  }

  it("medium and hard questions still offer four options, filled from the same material's sentences", () => {
    const snap = demoSnapshot("user_ada");
    const params = paramsSchemas.quiz_generation.parse({
      count: 6,
      difficulty: "medium",
      questionTypes: ["single_choice"],
    });
    const out = analyse("quiz_generation", snap, params, AS_OF) as { questions: Q[] };
    const described = out.questions.filter((q) => q.stem.startsWith("Which statement describes"));
    expect(described.length).toBeGreaterThan(0);
    for (const q of described) {
      expect(q.options).toHaveLength(4);
      const own = textsOf(snap.knowledgePoints.find((k) => k.id === q.knowledgePointId)!.materialId!);
      const generic = ["none of the other options", "it is not covered in this material"];
      // Each option is a text of the same material with a point's name hidden ("_____"), or the
      // point's own statement negated (a common confusion), or a generic option.
      const texts = [...own].flatMap((t) => [t, negate(t)?.toLowerCase() ?? t]);
      for (const o of q.options)
        expect(texts.some((t) => fits(o, t)) || generic.includes(o.toLowerCase()), o).toBe(true);
    }
  });
});
