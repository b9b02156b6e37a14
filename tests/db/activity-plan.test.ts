import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { readLearningState } from "@/server/jobs/snapshot";
import { uid } from "../helpers/factories";

/**
 * A million activity items (quiz attempts and study sessions of a thousand learners, as the
 * platform API would have sent them, each with its external id) must not slow one learner's
 * snapshot: the queries readLearningState (server/jobs/snapshot.ts) runs stay index-backed, never
 * a sequential scan of the activity tables. The statements are the ones Prisma sends for it,
 * prepared and run past PostgreSQL's switch to a generic plan.
 */
const LEARNERS = 1000;
const ATTEMPTS = 600_000;
const SESSIONS = 400_000;

let client: pg.Client;
const me = uid("plan");
let materialId: string;
let kpIds: string[];

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const tag = uid("bulk");
  await client.query(
    `INSERT INTO "User" (id, email, name, role, "externalId", "createdAt", "updatedAt")
     SELECT '${tag}_u' || g, '${tag}_u' || g || '@example.test', 'Learner ' || g, 'learner', '${tag}_ext' || g, now(), now()
     FROM generate_series(0, ${LEARNERS}) g`,
  );
  // Learner 0 is the one whose snapshot is read.
  await client.query(`UPDATE "User" SET id = $1 WHERE id = '${tag}_u0'`, [me]);
  await client.query(
    `INSERT INTO "Material" (id, "userId", title, content, "externalId", "createdAt")
     SELECT '${tag}_m' || g, CASE WHEN g = 0 THEN $1 ELSE '${tag}_u' || g END, 'M' || g, 'text', 'm' || g, now()
     FROM generate_series(0, ${LEARNERS}) g`,
    [me],
  );
  await client.query(
    `INSERT INTO "KnowledgePoint" (id, "userId", "materialId", title, description, "externalId", "createdAt")
     SELECT '${tag}_k' || g || '_' || k, CASE WHEN g = 0 THEN $1 ELSE '${tag}_u' || g END, '${tag}_m' || g, 'K' || k, '', 'k' || k, now()
     FROM generate_series(0, ${LEARNERS}) g, generate_series(1, 3) k`,
    [me],
  );
  // Spread over every learner, learner 0 included (about 600 attempts and 400 sessions each).
  await client.query(
    `INSERT INTO "QuizAttempt" (id, "userId", "knowledgePointId", question, correct, "answeredAt", "externalId")
     SELECT '${tag}_q' || g, CASE WHEN g % ${LEARNERS} = 0 THEN $1 ELSE '${tag}_u' || (g % ${LEARNERS}) END,
       '${tag}_k' || (g % ${LEARNERS}) || '_' || (1 + g % 3), '', g % 2 = 0, now() - g * interval '1 second', 'q' || g
     FROM generate_series(1, ${ATTEMPTS}) g`,
    [me],
  );
  await client.query(
    `INSERT INTO "StudySession" (id, "userId", "materialId", "startedAt", minutes, "externalId")
     SELECT '${tag}_s' || g, CASE WHEN g % ${LEARNERS} = 0 THEN $1 ELSE '${tag}_u' || (g % ${LEARNERS}) END,
       CASE WHEN g % 2 = 0 THEN '${tag}_m' || (g % ${LEARNERS}) END, now() - g * interval '1 second', 10, 's' || g
     FROM generate_series(1, ${SESSIONS}) g`,
    [me],
  );
  await client.query(`ANALYZE "User", "Material", "KnowledgePoint", "QuizAttempt", "StudySession"`);
  materialId = `${tag}_m0`;
  kpIds = [1, 2, 3].map((k) => `${tag}_k0_${k}`);
}, 600_000);

afterAll(async () => {
  await client?.end();
});

/** EXPLAIN of a statement prepared once and executed past the generic-plan switch. */
async function plans(name: string, sql: string, args: unknown[]) {
  await client.query(`PREPARE ${name} AS ${sql}`);
  const literal = (v: unknown) =>
    Array.isArray(v)
      ? `ARRAY[${v.map((x) => `'${x}'`).join(",")}]::text[]`
      : typeof v === "number"
        ? String(v)
        : `'${v}'`;
  const out: string[] = [];
  for (let run = 1; run <= 7; run++) {
    const res = await client.query(`EXPLAIN EXECUTE ${name}(${args.map(literal).join(", ")})`);
    out.push(res.rows.map((r) => r["QUERY PLAN"]).join("\n"));
  }
  await client.query(`DEALLOCATE ${name}`);
  return out;
}

function expectIndexed(texts: string[], table: string) {
  for (const [i, text] of texts.entries()) {
    expect(text, `run ${i + 1}:\n${text}`).not.toMatch(new RegExp(`Seq Scan on "${table}"`));
    expect(text, `run ${i + 1}:\n${text}`).toMatch(
      new RegExp(`(Index Scan|Index Only Scan|Bitmap Index Scan)[^\\n]*"${table}_`),
    );
  }
}

describe("a learner's snapshot with a million activity items in the tables", () => {
  it("has the data: a million items, about a thousand of them this learner's", async () => {
    const [a, s] = await Promise.all([getDb().quizAttempt.count(), getDb().studySession.count()]);
    expect(a + s).toBeGreaterThanOrEqual(ATTEMPTS + SESSIONS);
    expect(await getDb().quizAttempt.count({ where: { userId: me } })).toBe(ATTEMPTS / LEARNERS);
    // And the snapshot reads what it should: the newest 500 attempts, 200 sessions.
    const state = await readLearningState(getDb(), me, { type: "user", id: me });
    expect(state.quizAttempts).toHaveLength(500);
    expect(state.studySessions).toHaveLength(200);
  });

  it("the whole-learner target: quiz attempts and study sessions, newest first, by index", async () => {
    expectIndexed(
      await plans(
        "attempts_all",
        `SELECT "knowledgePointId", question, correct, "answeredAt" FROM "QuizAttempt" WHERE "userId" = $1
         ORDER BY "answeredAt" DESC, id ASC LIMIT $2 OFFSET $3`,
        [me, 500, 0],
      ),
      "QuizAttempt",
    );
    expectIndexed(
      await plans(
        "sessions_all",
        `SELECT "materialId", "startedAt", minutes FROM "StudySession" WHERE "userId" = $1
         ORDER BY "startedAt" DESC, id ASC LIMIT $2 OFFSET $3`,
        [me, 200, 0],
      ),
      "StudySession",
    );
  });

  it("a material or knowledge point target: the same, narrowed, by index", async () => {
    expectIndexed(
      await plans(
        "attempts_kps",
        `SELECT "knowledgePointId", question, correct, "answeredAt" FROM "QuizAttempt"
         WHERE "userId" = $1 AND "knowledgePointId" = ANY($2::text[])
         ORDER BY "answeredAt" DESC, id ASC LIMIT $3 OFFSET $4`,
        [me, kpIds, 500, 0],
      ),
      "QuizAttempt",
    );
    expectIndexed(
      await plans(
        "sessions_material",
        `SELECT "materialId", "startedAt", minutes FROM "StudySession"
         WHERE "userId" = $1 AND "materialId" = ANY($2::text[])
         ORDER BY "startedAt" DESC, id ASC LIMIT $3 OFFSET $4`,
        [me, [materialId], 200, 0],
      ),
      "StudySession",
    );
    expectIndexed(
      await plans("kps_of_material", `SELECT id FROM "KnowledgePoint" WHERE "userId" = $1 AND "materialId" = $2`, [
        me,
        materialId,
      ]),
      "KnowledgePoint",
    );
  });

  it("ingestion's repeat check is the (userId, externalId) unique index", async () => {
    expectIndexed(
      await plans("attempt_by_ext", `SELECT id FROM "QuizAttempt" WHERE "userId" = $1 AND "externalId" = $2`, [
        me,
        "q1000",
      ]),
      "QuizAttempt",
    );
  });
});
