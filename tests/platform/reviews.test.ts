import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { uid } from "../helpers/factories";
import { platform, serviceKey } from "../helpers/platform-api";

/** Card reviews through POST /api/v1/learners/{id}/activity: by the platform's ids, idempotent, replayed in time order. */
let api: ReturnType<typeof platform>;
beforeAll(async () => {
  api = platform(await serviceKey());
});

const review = (id: string, card: string, rating: string, at: string, extra: Record<string, unknown> = {}) => ({
  externalId: id,
  cardExternalId: card,
  front: `Front of ${card}`,
  back: `Back of ${card}`,
  rating,
  reviewedAt: at,
  ...extra,
});

async function learner() {
  const ext = uid("ext");
  await api.putLearner(ext, { name: "R" });
  await api.putMaterial(ext, "m", {
    title: "Cells",
    text: "Cells are the unit of life.",
    knowledgePoints: [{ externalId: "k1", title: "Cell" }],
  });
  const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
  return { ext, userId: user.id };
}

const cardOf = (userId: string, externalId: string) =>
  getDb().reviewCard.findUniqueOrThrow({
    where: { userId_externalId: { userId, externalId } },
    include: { logs: { orderBy: { reviewedAt: "asc" } }, knowledgePoint: true },
  });

describe("reviews in the activity call", () => {
  it("stores each review once and schedules the card from them; repeats are counted, not stored", async () => {
    const { ext, userId } = await learner();
    const batch = {
      reviews: [
        review("r1", "c1", "good", "2026-11-01T10:00:00Z", { knowledgePointExternalId: "k1" }),
        review("r2", "c1", "good", "2026-11-03T10:00:00Z", { knowledgePointExternalId: "k1" }),
        review("r2", "c1", "again", "2026-11-03T10:00:00Z"),
        review("r3", "c2", "again", "2026-11-03T11:00:00Z", { kind: "question" }),
      ],
    };
    const first = await api.activity(ext, batch);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ reviews: { received: 4, new: 3 }, new: 3, repeated: 1 });
    const again = await api.activity(ext, batch);
    expect(again.body).toMatchObject({ reviews: { received: 4, new: 0 }, new: 0, repeated: 4 });

    const c1 = await cardOf(userId, "c1");
    expect(c1.logs.map((l) => [l.externalId, l.rating])).toEqual([
      ["r1", 3],
      ["r2", 3],
    ]);
    expect(c1).toMatchObject({ reps: 2, lapses: 0, kind: "flashcard", front: "Front of c1" });
    expect(c1.knowledgePoint?.externalId).toBe("k1");
    expect(c1.due.getTime()).toBeGreaterThan(new Date("2026-11-04T10:00:00Z").getTime());
    const c2 = await cardOf(userId, "c2");
    expect(c2).toMatchObject({ kind: "question", reps: 1 });
  });

  it("a review that arrives late is replayed in time order: the same schedule as sent in order", async () => {
    const a = await learner();
    const b = await learner();
    const inOrder = [
      review("x1", "c", "easy", "2026-11-01T10:00:00Z"),
      review("x2", "c", "again", "2026-11-05T10:00:00Z"),
      review("x3", "c", "good", "2026-11-06T10:00:00Z"),
    ];
    await api.activity(a.ext, { reviews: inOrder });
    await api.activity(b.ext, { reviews: [inOrder[0], inOrder[2]] });
    await api.activity(b.ext, { reviews: [inOrder[1]] });
    const [ca, cb] = [await cardOf(a.userId, "c"), await cardOf(b.userId, "c")];
    const memory = (c: typeof ca) => [c.due.toISOString(), c.stability, c.difficulty, c.reps, c.lapses, c.state];
    expect(memory(cb)).toEqual(memory(ca));
    expect(ca.lapses).toBe(1);
    expect(cb.logs.map((l) => l.externalId)).toEqual(["x1", "x2", "x3"]);
    expect(cb.logs.map((l) => l.due.toISOString())).toEqual(ca.logs.map((l) => l.due.toISOString()));
  });

  it("bad reviews are a 4xx and store nothing", async () => {
    const { ext, userId } = await learner();
    const ok = review("ok", "c", "good", "2026-11-01T10:00:00Z");
    const cases: [unknown, number, string][] = [
      [{ reviews: [ok, review("bad", "c", "perfect", "2026-11-01T10:00:00Z")] }, 400, "INVALID_REQUEST"],
      [{ reviews: [ok, { ...ok, externalId: "e2", front: "" }] }, 400, "INVALID_REQUEST"],
      [{ reviews: [ok, { ...ok, externalId: "e3", __proto__x: 1 }] }, 400, "INVALID_REQUEST"],
      [{ reviews: [ok, { ...ok, externalId: "e4", back: "a\u0000b" }] }, 400, "INVALID_REQUEST"],
      [
        { reviews: [ok, review("e5", "c", "good", "2026-11-01T10:00:00Z", { knowledgePointExternalId: "nope" })] },
        422,
        "UNKNOWN_REFERENCE",
      ],
      [
        { reviews: Array.from({ length: 1001 }, (_, i) => review(`m${i}`, "c", "good", "2026-11-01T10:00:00Z")) },
        400,
        "INVALID_REQUEST",
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await api.activity(ext, body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
    expect(await getDb().reviewCard.count({ where: { userId } })).toBe(0);
    expect(await getDb().reviewLog.count({ where: { userId } })).toBe(0);
  });

  it("two calls racing with reviews of one card store each review once and agree on the schedule", async () => {
    const { ext, userId } = await learner();
    const rs = Array.from({ length: 6 }, (_, i) =>
      review(`p${i}`, "c", i % 3 ? "good" : "hard", `2026-11-0${i + 1}T10:00:00Z`),
    );
    const [x, y] = await Promise.all([
      api.activity(ext, { reviews: rs.slice(0, 4) }),
      api.activity(ext, { reviews: rs.slice(2) }),
    ]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(x.body.reviews.new + y.body.reviews.new).toBe(6);
    const raced = await cardOf(userId, "c");
    const calm = await learner();
    await api.activity(calm.ext, { reviews: rs });
    const expected = await cardOf(calm.userId, "c");
    expect([raced.due, raced.stability, raced.reps]).toEqual([expected.due, expected.stability, expected.reps]);
  });
});
