import { z } from "zod";
import { Prisma } from "../generated/prisma/client";
import { JobStatus, JobType } from "../generated/prisma/enums";

/**
 * The one shape of a job-change push (pg_notify on CHANNEL): its fields, each with the parser's
 * schema and the job-row column it is read from. Every writer builds the payload with
 * jobChangeSql() (in SQL, from the row it just wrote) or jobChangePayload() (in JS, from a row
 * Prisma returned); the LISTEN side parses it with jobChangeSchema. Adding a field here adds it
 * to all of them. The browser imports the type (`import type { JobChange }`), never a copy.
 */
export const CHANNEL = "ai_job_events";

const FIELDS = {
  id: z.string(),
  userId: z.string(),
  jobType: z.enum(JobType),
  status: z.enum(JobStatus),
  attemptNo: z.number(),
  stage: z.string().nullable(),
  progress: z.number(),
  cancelRequested: z.boolean(),
  /** When a pending job becomes visible (UTC, as stored); long polls wake at it. */
  runAfter: z.string().nullish(),
};
const NAMES = Object.keys(FIELDS) as (keyof typeof FIELDS)[];

export const jobChangeSchema = z.object({
  ...FIELDS,
  /** Set on creation's push only (the workflow relay starts the job's workflow on it). */
  created: z.boolean().optional(),
});
export type JobChange = z.infer<typeof jobChangeSchema>;

/**
 * `pg_notify(…) AS notified` for the row aliased `alias` (a statement's RETURNING set): one
 * push per row, delivered only if the transaction commits.
 */
export function jobChangeSql(alias: string) {
  const a = Prisma.raw(alias);
  const pairs = Prisma.join(
    NAMES.map((name) => Prisma.sql`${Prisma.raw(`'${name}'`)}, ${a}.${Prisma.raw(`"${name}"`)}`),
    ", ",
  );
  return Prisma.sql`(pg_notify(${Prisma.raw(`'${CHANNEL}'`)}, json_build_object(${pairs})::text)::text = '') AS notified`;
}

type ChangeRow = {
  [K in keyof typeof FIELDS]: K extends "runAfter" ? Date | string | null : z.infer<(typeof FIELDS)[K]>;
};

/** The same payload from a row in JS (creation, which writes its row through Prisma). */
export function jobChangePayload(row: ChangeRow, extra: { created?: true } = {}): string {
  const change: Record<string, unknown> = {};
  for (const name of NAMES) {
    const value = row[name];
    // As json_build_object writes a timestamp(3): ISO without the zone (the column is UTC).
    change[name] = value instanceof Date ? value.toISOString().replace(/Z$/, "") : value;
  }
  return JSON.stringify({ ...change, ...extra });
}
