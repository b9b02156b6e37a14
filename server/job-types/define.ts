import type { z } from "zod";
import type { TargetType } from "../generated/prisma/enums";
import type { Locale } from "../i18n/locales";
import type { SnapshotContent } from "./fields";

/** Rules every type's output is checked against beyond its schema (the API adds them to each type's own). */
export const COMMON_QUALITY_RULES = {
  unknown_schema_version: "`outputSchemaVersion` names a version the API knows (`v1` or `v2`, the current one).",
  knowledge_point_unknown:
    "Every `knowledgePointId` in the output is the id of a knowledge point in the job's snapshot.",
  job_type_mismatch: "A `POST /results` item that names its `jobType` names its job's type.",
} as const;
export type CommonRule = keyof typeof COMMON_QUALITY_RULES;

/** What a type's quality rules are given: a way to report a broken rule, the snapshot's ids and the job's params. */
export type QualityCheck<P, R extends string> = {
  /** One broken rule: where in the output (dot path, "" for the whole output), which rule, in words. */
  add(path: string, rule: R | CommonRule, message: string): void;
  /** Reports knowledge_point_unknown at `${where}.knowledgePointId` when the id is not in the snapshot. */
  knowledgePoint(where: string, id: string | null | undefined): void;
  knowledgePointIds: ReadonlySet<string>;
  /** The job's snapshot, when the checker has it (a rule that needs it fails the output without it). */
  snapshot: SnapshotContent | null;
  /** The job's params, parsed by the type's params schema (throws on params the type never accepts). */
  params(): P;
};

/**
 * What the browser, the API's documents and every Runtime may know of a type: its label, the
 * targets it runs on, its params and output schemas and the prose of its quality rules. Pure zod
 * and text (in the type's ./<type>/schema.ts), never its analyzer: ./catalogue.ts lists these.
 */
export type CatalogueEntry<
  P extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  R extends string = string,
> = {
  /** In English, for the console, metrics help and the learner page. */
  label: { title: string; blurb: string };
  /**
   * The targets a job of this type may be made on (docs/contract.md#who-uses-it: the
   * learner, a material, a knowledge point); left out, all of them. Creation refuses any other
   * with INVALID_REQUEST (400).
   */
  targets?: readonly TargetType[];
  /** The job's params (stored with the job, checked at creation; unknown keys refused). */
  params: P;
  /**
   * The output a Runtime submits, in the current version (OUTPUT_SCHEMA_VERSION), and the first
   * version's schema when it differs (results stored as v1 are still accepted, read and shown).
   */
  output: { version: "v2"; schema: O; v1?: z.ZodType };
  /** The type's quality rules beyond its schema: rule name → what it asks, in prose (the OpenAPI document publishes them). */
  qualityRules: Record<R, string>;
};

/** Keeps the entry's own types (params, output, rule names) while checking it is a whole entry. */
export const catalogueEntry = <P extends z.ZodObject, O extends z.ZodType, R extends string = never>(
  e: CatalogueEntry<P, O, R>,
) => e;

/**
 * One job type: everything the system knows about it, in its folder (./<type>/index.ts, with its
 * catalogue entry and schemas in ./<type>/schema.ts and its local analyzer in ./<type>/analyse.ts).
 * The registry (./index.ts) lists them; every list of types, enum, schema map, rule list, prompt
 * and label elsewhere is derived from it or from the catalogue (./catalogue.ts), so a new type is
 * its folder, its learner renderer and one line in each list (plus the Postgres enum's migration).
 */
export type JobTypeDefinition<
  P extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  R extends string = string,
> = CatalogueEntry<P, O, R> & {
  /** The API's acceptance rules: report every broken one with `check.add`. */
  quality(output: z.infer<O>, check: QualityCheck<z.infer<P>, R>): void;
  /**
   * The pipeline's quality checks, a bar stricter than the API's: findings send the model round
   * the quality loop again, and after the last loop the output is submitted marked degraded.
   */
  qualityChecks(
    output: z.infer<O>,
    ctx: { snapshot: SnapshotContent; params: Record<string, unknown>; locale: Locale },
  ): string[];
  /** The model's task, and the rules that depend on the job's params. */
  prompt: { task: string; rules?: (params: Record<string, unknown>, locale: Locale) => string[] };
  /**
   * The local analyzer: a pure function of snapshot, params, the snapshot's time and the job's
   * language (every text it writes comes from templates in both languages, job-types/shared/templates.ts).
   */
  analyse(snapshot: SnapshotContent, params: z.infer<P>, asOf: Date, locale: Locale): z.infer<O>;
};

/** Keeps the module's own types (params, output, rule names) while checking it is a whole definition. */
export const defineJobType = <P extends z.ZodObject, O extends z.ZodType, R extends string = never>(
  d: JobTypeDefinition<P, O, R>,
) => d;
