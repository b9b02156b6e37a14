import { Prisma } from "../generated/prisma/client";
import type { JobStatus } from "../generated/prisma/enums";

/**
 * A status set from server/jobs/constants.ts as SQL literals, for `status IN (…)`. Literals, not
 * bound parameters: the planner must see the values to match the partial indexes (lease, in-flight
 * input) whose predicates are status lists. The values are the JobStatus enum, never user input.
 */
export function statusList(statuses: readonly JobStatus[]): Prisma.Sql {
  if (!statuses.length || statuses.some((s) => !/^[a-z_]+$/.test(s)))
    throw new Error(`not a status set: ${statuses.join(",")}`);
  return Prisma.raw(statuses.map((s) => `'${s}'`).join(", "));
}
