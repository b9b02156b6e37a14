import { describe, expect, it } from "vitest";
import { RESULT_RENDERERS } from "@/components/learner/results";
import en from "@/messages/en.json";
import zh from "@/messages/zh-CN.json";
import { getDb } from "@/server/db";
import { JobType } from "@/server/generated/prisma/enums";
import {
  JOB_TYPE_REGISTRY,
  JOB_TYPES,
  jobTypeOf,
  jobTypeSchema,
  paramsSchemas,
  targetTypesOf,
} from "@/server/job-types";
import { JOB_TYPE_CATALOGUE } from "@/server/job-types/catalogue";
import { COMMON_QUALITY_RULES } from "@/server/job-types/define";
import { checkOutput, QUALITY_RULES } from "@/server/jobs/quality";
import { buildPrompt } from "@/server/pipeline/prompts";
import { analyse } from "@/server/providers/local";
import { pollRequest, violationSchema } from "@/server/runtime-api/contract";
import { AS_OF, materialSnapshot, smallSnapshot } from "../pipeline/fixtures";

/**
 * The job-type registry is the one list of types: the Prisma model's enum, the database's enum,
 * the learner's renderers and every derived list agree with it, and each type's module is whole.
 */
describe("the job-type registry", () => {
  it("has exactly the Prisma enum's values, and the database's, in the same order", async () => {
    expect(Object.keys(JOB_TYPE_REGISTRY)).toEqual(Object.values(JobType));
    const rows = await getDb().$queryRaw<{ v: string }[]>`SELECT unnest(enum_range(NULL::"JobType"))::text AS v`;
    expect(rows.map((r) => r.v)).toEqual(JOB_TYPES);
    expect(jobTypeSchema.options).toEqual(JOB_TYPES);
  });

  it("is the catalogue's entries plus code: the same label, targets, schemas and rules", () => {
    expect(Object.keys(JOB_TYPE_CATALOGUE)).toEqual(Object.keys(JOB_TYPE_REGISTRY));
    for (const t of JOB_TYPES) {
      const entry: Record<string, unknown> = JOB_TYPE_CATALOGUE[t];
      const type: Record<string, unknown> = jobTypeOf(t);
      for (const key of Object.keys(entry)) expect(type[key], `${t}.${key}`).toBe(entry[key]);
      expect(typeof jobTypeOf(t).analyse, t).toBe("function");
      expect(typeof jobTypeOf(t).qualityChecks, t).toBe("function");
    }
  });

  it("gives every type a learner renderer with an icon, and a title", () => {
    expect(Object.keys(RESULT_RENDERERS)).toEqual(JOB_TYPES);
    for (const t of JOB_TYPES) {
      expect(typeof RESULT_RENDERERS[t].View, t).toBe("function");
      expect(RESULT_RENDERERS[t].icon.tone, t).toMatch(/^bg-/);
      // The learner's words for it, in both catalogues (the console's English label is the registry's).
      for (const messages of [en, zh])
        expect((messages.jobTypes as Record<string, { title: string }>)[t]?.title, t).toBeTruthy();
      expect(JOB_TYPE_REGISTRY[t].label.title.length, t).toBeGreaterThan(0);
    }
  });

  it("lets a Runtime advertise every type at once (no literal cap on the list)", () => {
    const body = { runtimeInstanceId: "rt-1", capabilities: [...JOB_TYPES] };
    expect(pollRequest.safeParse(body).success).toBe(true);
    expect(pollRequest.safeParse({ ...body, capabilities: [...JOB_TYPES, JOB_TYPES[0]] }).success).toBe(false);
  });

  it("names every quality rule in the rule list, in the shape a rejection carries, with prose", () => {
    for (const t of JOB_TYPES) {
      for (const [rule, prose] of Object.entries(jobTypeOf(t).qualityRules)) {
        expect(QUALITY_RULES, `${t}: ${rule}`).toContain(rule);
        expect(violationSchema.shape.rule.safeParse(rule).success, rule).toBe(true);
        expect(prose.length, rule).toBeGreaterThan(10);
      }
    }
    for (const rule of Object.keys(COMMON_QUALITY_RULES)) expect(QUALITY_RULES).toContain(rule);
  });

  it("runs each type's local analyzer to an output its own quality rules accept, with a prompt naming its task", () => {
    for (const t of JOB_TYPES) {
      // A type that runs on materials only is given a material's snapshot.
      const snapshot = targetTypesOf(t).includes("user") ? smallSnapshot() : materialSnapshot();
      const knowledgePointIds = new Set(snapshot.knowledgePoints.map((k) => k.id));
      const params = paramsSchemas[t].parse({}) as Record<string, unknown>;
      const output = analyse(t, snapshot, params, AS_OF);
      expect(checkOutput(t, "v1", output, { knowledgePointIds, params, snapshot }), t).toEqual({ ok: true, output });
      expect(buildPrompt({ jobType: t, snapshot, params, asOf: AS_OF }).user, t).toContain(jobTypeOf(t).prompt.task);
    }
  });

  it("reports a type's own broken rule through its module (a quiz with a repeated stem)", () => {
    const snapshot = smallSnapshot();
    const params = { count: 2, difficulty: "mixed", questionTypes: ["short_answer"] };
    const q = {
      type: "short_answer",
      stem: "What splits water?",
      options: [],
      answer: "Light",
      explanation: "…",
      knowledgePointId: "kp_a",
      difficulty: "easy",
    };
    const check = checkOutput(
      "quiz_generation",
      "v1",
      { questions: [q, { ...q, stem: " what SPLITS water? ", knowledgePointId: "kp_zz" }] },
      { knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)), params },
    );
    expect(check.ok).toBe(false);
    expect(!check.ok && check.violations.map((v) => [v.path, v.rule])).toEqual([
      ["questions.1.stem", "duplicate_stem"],
      ["questions.1.knowledgePointId", "knowledge_point_unknown"],
    ]);
  });
});
