import { expect, test, type APIRequestContext } from "@playwright/test";
import { trpc } from "./admin-helpers";
import { rowsOf, shot, signIn } from "./learner-helpers";
import { createNewLearner } from "./new-learner";

/**
 * Grading she can trust, in English and in 简体中文: a new learner plays a quiz whose question asks
 * her to explain a point in her own words. She answers in words quite unlike the model answer;
 * the page shows her answer beside the model answer (the material's own statement of the point)
 * and waits for her mark; she marks herself right. Then the score counts it, Review holds no
 * "wrong question" card, and the learning-state and weak-point analyses see a right answer: 100 %
 * mastery, no weak point.
 */
const WORDS = {
  en: {
    material: "Buoyancy",
    text: [
      "Buoyancy",
      "Buoyancy is the upward force a fluid exerts on an object immersed in it.",
      "Conditions for floating and sinking",
      "An immersed object rises when the buoyant force is greater than its weight, sinks when the buoyant force is less than its weight, and stays suspended when the two are equal.",
    ].join("\n"),
    point: "Conditions for floating and sinking",
    model: "rises when the buoyant force is greater than its weight",
    own: "If the water pushes up harder than gravity pulls down it goes up, if weaker it goes down, if the same it just hangs there",
    submit: "Submit answers",
    toMark: "1 answer in your own words waits for your mark",
    right: "I was right",
    marked: "✓ You marked this right",
    scoreBefore: "You scored 0 / 1",
    scoreAfter: "You scored 1 / 1",
  },
  "zh-CN": {
    material: "浮力",
    text: [
      "浮力",
      "浮力是浸在液体或气体中的物体受到的向上托的力。",
      "物体的浮沉条件",
      "浸没在液体中的物体，当浮力大于重力时上浮；当浮力小于重力时下沉；当浮力等于重力时悬浮。",
    ].join("\n"),
    point: "物体的浮沉条件",
    model: "当浮力大于重力时上浮；当浮力小于重力时下沉；当浮力等于重力时悬浮",
    own: "往上托的力比物体的重量大就浮上来，小了就沉下去，一样大就停在水中间",
    submit: "提交答案",
    toMark: "还有 1 道用自己的话作答的题等你自评",
    right: "我答对了",
    marked: "✓ 你判定为答对",
    scoreBefore: "你的得分：0 / 1",
    scoreAfter: "你的得分：1 / 1",
  },
} as const;

type Job = { id: string; status: string };

async function finished(req: APIRequestContext, jobType: string, target: { type: string; id: string }, params = {}) {
  const res = await trpc<{ job: Job }>(req, "jobs.create", { jobType, target, params }, "mutation");
  expect(res.status, JSON.stringify(res.error)).toBe(200);
  const jobId = res.data.job.id;
  await expect
    .poll(async () => (await trpc<{ job: Job }>(req, "jobs.get", { jobId }, "query")).data?.job.status, {
      timeout: 90_000,
    })
    .toBe("succeeded");
  const out = await trpc<{ result: { output: unknown } }>(req, "jobs.get", { jobId }, "query");
  return { jobId, output: out.data.result.output };
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`[LEARNER] an answer in her own words: she sees the model answer, marks herself right, and it counts right (${locale})`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const w = WORDS[locale];
    await signIn(page, await createNewLearner());
    const req = page.request;
    await trpc(req, "account.setLocale", { locale }, "mutation");
    await trpc(req, "consent.set", { granted: true }, "mutation");
    const material = await trpc<{ id: string }>(
      req,
      "materials.create",
      { title: w.material, text: w.text, knowledgePoints: [{ title: w.point, description: "" }] },
      "mutation",
    );
    expect(material.status, JSON.stringify(material.error)).toBe(200);
    const targets = await trpc<{ materials: { id: string; knowledgePoints: { id: string; title: string }[] }[] }>(
      req,
      "targets.list",
      undefined,
      "query",
    );
    const kp = targets.data.materials[0]!.knowledgePoints.find((k) => k.title === w.point)!;
    const point = { type: "knowledge_point", id: kp.id };
    await finished(req, "quiz_generation", point, { count: 1, questionTypes: ["short_answer"] });

    await page.goto("/");
    await rowsOf(page, "quiz_generation").first().getByRole("button").first().click();
    const question = page.getByTestId("quiz-question");
    await expect(question).toHaveCount(1);
    await question.getByRole("textbox").fill(w.own);
    await page.getByRole("button", { name: w.submit }).click();

    // Not graded wrong: shown beside the model answer, waiting for her mark.
    const score = page.getByTestId("quiz-score");
    await expect(score).toContainText(w.scoreBefore);
    await expect(page.getByTestId("quiz-to-mark")).toContainText(w.toMark);
    await expect(page.getByTestId("self-mark-response")).toHaveText(w.own);
    await expect(page.getByTestId("self-mark-answer")).toContainText(w.model);
    await shot(page, `${locale}-self-mark`);
    await page.getByRole("button", { name: w.right }).click();
    await expect(page.getByTestId("self-mark-result")).toHaveText(w.marked);
    await expect(score).toContainText(w.scoreAfter);
    await expect(page.getByTestId("quiz-to-mark")).toHaveCount(0);
    await shot(page, `${locale}-self-marked`);

    // Her mark is what counts: no wrong-question card, full mastery, no weak point.
    const queue = await trpc<{ due: { questions: number }; cardsInSchedule: number }>(
      req,
      "review.queue",
      undefined,
      "query",
    );
    expect(queue.data.due.questions).toBe(0);
    expect(queue.data.cardsInSchedule).toBe(0);
    const state = await finished(req, "learning_state_analysis", point);
    const mastery = (state.output as { knowledgePoints: { knowledgePointId: string; mastery: number }[] })
      .knowledgePoints;
    expect(mastery.find((k) => k.knowledgePointId === kp.id)?.mastery).toBe(1);
    const weak = await finished(req, "weak_point_analysis", point);
    expect(
      (weak.output as { weakPoints: { knowledgePointId: string }[] }).weakPoints.map((x) => x.knowledgePointId),
    ).not.toContain(kp.id);
  });
}
