import { z } from "zod";
import { countJobs, exploreJobs } from "../../admin/explorer";
import { jobFilterSchema, sortSchema } from "../../admin/filter-schema";
import { getAdminJobDetail } from "../../admin/job-detail";
import { onReadReplica, readSource } from "../../read-replica";
import { adminProcedure, router } from "../init";
import { adminEventSchema, adminJobSchema, isoDate, jobIdInput, jobStatusSchema, resultSchema } from "../schemas";

const rowSchema = z.object({
  id: z.string(),
  jobType: z.string(),
  status: jobStatusSchema,
  userId: z.string(),
  userEmail: z.string().nullable(),
  userName: z.string().nullable(),
  userLocale: z.string().nullable(),
  locale: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  priority: z.number().int(),
  attemptNo: z.number().int(),
  retryCount: z.number().int(),
  maxRetryCount: z.number().int(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  lockedBy: z.string().nullable(),
  stage: z.string().nullable(),
  progress: z.number().int(),
  cancelRequested: z.boolean(),
  idempotencyKey: z.string().nullable(),
  retriedFromJobId: z.string().nullable(),
  createdAt: isoDate,
  finishedAt: isoDate.nullable(),
});

const linkSchema = z.object({ id: z.string(), status: jobStatusSchema, createdAt: isoDate });

/** The job explorer: keyset pages over every job, a capped count, and one job in full. */
export const adminExplorerRouter = router({
  list: adminProcedure
    .input(
      z.object({
        filter: jobFilterSchema.default({}),
        sort: sortSchema.default("createdAt_desc"),
        limit: z.number().int().min(1).max(200).default(50),
        cursor: z.string().max(200).optional(),
      }),
    )
    .output(z.object({ items: z.array(rowSchema), nextCursor: z.string().nullable() }))
    .query(({ input }) => onReadReplica(() => exploreJobs(input))),

  count: adminProcedure
    .input(z.object({ filter: jobFilterSchema.default({}) }))
    .output(z.object({ total: z.number().int(), capped: z.boolean() }))
    .query(({ input }) => onReadReplica(() => countJobs(input.filter))),

  detail: adminProcedure
    .input(jobIdInput)
    .output(
      z.object({
        job: adminJobSchema,
        result: resultSchema.nullable(),
        events: z.array(adminEventSchema),
        user: z
          .object({ id: z.string(), email: z.string(), name: z.string(), locale: z.string().nullable() })
          .nullable(),
        snapshot: z
          .object({
            id: z.string(),
            contentHash: z.string(),
            content: z.record(z.string(), z.unknown()),
            createdAt: isoDate,
          })
          .nullable(),
        lineage: z.object({ retriedFrom: linkSchema.nullable(), reruns: z.array(linkSchema) }),
        holder: z.object({ id: z.string(), version: z.string().nullable(), lastSeenAt: isoDate }).nullable(),
        rejections: z.array(
          z.object({
            attemptNo: z.number().int(),
            output: z.string(),
            truncated: z.boolean(),
            outputBytes: z.number().int(),
            violations: z.array(z.object({ path: z.string(), rule: z.string(), message: z.string() })),
            createdAt: isoDate,
          }),
        ),
      }),
    )
    .query(({ input }) => onReadReplica(() => getAdminJobDetail(input.jobId))),

  /** Where the reads above come from now: a standby (DATABASE_READ_URL) and its lag, or the primary and why. */
  readSource: adminProcedure
    .input(z.void())
    .output(
      z.union([
        z.object({ source: z.literal("replica"), lagSeconds: z.number() }),
        z.object({
          source: z.literal("primary"),
          reason: z.enum(["not configured", "unreachable", "behind"]),
          lagSeconds: z.number().nullable(),
        }),
      ]),
    )
    .query(() => readSource()),
});
