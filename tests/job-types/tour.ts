import type { SnapshotContent } from "@/server/jobs/schemas";

const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 10, day, hour)).toISOString();
const review = (id: string, r: Partial<NonNullable<SnapshotContent["reviews"]>["knowledgePoints"][number]>) => ({
  knowledgePointId: id,
  cards: 1,
  dueCards: 0,
  reviews: 0,
  again: 0,
  forgotten: 0,
  lapses: 0,
  retrievability: null,
  lastReviewedAt: null,
  ...r,
});

/**
 * The tour's learner: headings as points, quiz answers and reviews that pull different ways.
 * - k1 一、电流: 3 answers right, its one card forgotten at its latest review (again 1 of 2), due.
 * - k2 二、电压: 1 answer wrong, 2 reviews both passed, recall 100 % (a strength by reviews, a risk by answers).
 * - k3 三、电阻: 2 answers right, no cards.
 * - k4 四、串联电路: nothing.
 * - k5 五、电功率: no answers, 1 of 2 cards forgotten at its latest review (recall reads 100 %).
 */
export function tour(): SnapshotContent {
  const kp = (id: string, title: string) => ({ id, title, description: `${title}的定义。`, materialId: "m1" });
  const answer = (id: string, correct: boolean, day: number) => ({
    knowledgePointId: id,
    question: `${id} 的问题 ${day}`,
    correct,
    answeredAt: at(day),
  });
  return {
    version: 1,
    learner: { id: "u1", name: "小明" },
    target: { type: "user", id: "u1", title: "小明" },
    materials: [{ id: "m1", title: "电学", content: "电荷的定向移动形成电流。导体对电流的阻碍作用叫做电阻。" }],
    knowledgePoints: [
      kp("k1", "一、电流"),
      kp("k2", "二、电压"),
      kp("k3", "三、电阻"),
      kp("k4", "四、串联电路"),
      kp("k5", "五、电功率"),
    ],
    quizAttempts: [
      answer("k1", true, 19),
      answer("k1", true, 18),
      answer("k1", true, 17),
      answer("k2", false, 19),
      answer("k3", true, 19),
      answer("k3", true, 18),
    ],
    studySessions: [{ materialId: "m1", startedAt: at(19, 10), minutes: 45 }],
    reviews: {
      asOf: "2026-11-21T00:00:00.000Z",
      knowledgePoints: [
        review("k1", { dueCards: 1, reviews: 2, again: 1, forgotten: 1, retrievability: 1, lastReviewedAt: at(20) }),
        review("k2", { reviews: 2, retrievability: 1, lastReviewedAt: at(20) }),
        review("k5", { cards: 2, reviews: 3, again: 1, forgotten: 1, retrievability: 1, lastReviewedAt: at(20) }),
      ],
    },
  };
}
