import { z } from "zod";
import { JOB_STATUSES, JOB_TYPES, TARGET_TYPES } from "../jobs/constants";

/**
 * The explorer's filter, shared by the explorer, the bulk actions and the console's URL: what a
 * list shows is exactly what a bulk action over "everything this filter matches" touches.
 * No Prisma import here, so client components can parse URLs with it.
 */
const text = z.string().trim().min(1).max(200);

/**
 * A timestamp PostgreSQL and JavaScript agree on. z.iso.datetime() alone accepts
 * "0000-01-01T00:00:00Z" (year 0, which PostgreSQL's calendar does not have) and years past
 * 9999, which used to reach the database and come back as a 500.
 */
const MIN_TIME = Date.UTC(1970, 0, 1);
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const boundedDateTime = z.iso.datetime({ offset: true }).refine((s) => {
  const t = Date.parse(s);
  return Number.isFinite(t) && t >= MIN_TIME && t <= MAX_TIME;
}, "a date between 1970-01-01 and 9999-12-31");
export const isTimeInRange = (t: number) => Number.isFinite(t) && t >= MIN_TIME && t <= MAX_TIME;

export const jobFilterSchema = z.object({
  status: z.array(z.enum(JOB_STATUSES)).max(JOB_STATUSES.length).optional(),
  jobType: z.array(z.enum(JOB_TYPES)).max(JOB_TYPES.length).optional(),
  /** A user id or an email address. */
  user: text.optional(),
  targetType: z.enum(TARGET_TYPES).optional(),
  targetId: text.optional(),
  errorCode: z.string().trim().min(1).max(64).optional(),
  /** A rule an attempt's refused output broke (e.g. one_correct_option, schema.invalid_type). */
  rule: z
    .string()
    .trim()
    .regex(/^[a-z_]+(\.[a-z_]+)?$/, "a rule name")
    .max(64)
    .optional(),
  /** A Runtime instance that took part in the job (locked it, reported for it). */
  runtimeId: text.optional(),
  createdFrom: boundedDateTime.optional(),
  createdTo: boundedDateTime.optional(),
  /** A job id, an idempotency key, a user id or email. */
  q: text.optional(),
  /** A field inside params or the result's output: `path` is dot-separated, `value` JSON or text. */
  json: z
    .object({
      in: z.enum(["params", "output"]),
      path: z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+){0,4}$/, "dot-separated field names"),
      value: z.string().max(200),
    })
    .optional(),
});

export type JobFilter = z.infer<typeof jobFilterSchema>;

export const sortSchema = z.enum(["createdAt_desc", "createdAt_asc"]);
export type JobSort = z.infer<typeof sortSchema>;

export const BULK_ACTIONS = ["rerun", "cancel"] as const;
export const bulkScopeSchema = z.union([
  z.object({ ids: z.array(z.string().min(1).max(64)).min(1).max(500) }),
  z.object({ filter: jobFilterSchema }),
]);
export type BulkScope = z.infer<typeof bulkScopeSchema>;
