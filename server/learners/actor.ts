import { AppError } from "../errors";
import type { ActorType } from "../generated/prisma/enums";

/**
 * Who exercises a learner's data rights: the learner themself, an admin (id = their user id), the
 * platform through a service key (id = the key's id), or an operator's command (id = its name,
 * e.g. "cli:erasures:reapply").
 */
export type DataRightsActor = { type: "learner" | "admin" | "service" | "system"; id: string };

/** The audit row's actor. A learner acting on themself is written as their id for an export (the
 * erasure scrubs it later) and never for an erasure, whose row must name nobody. */
export function auditActorId(actor: DataRightsActor, opts: { anonymous: boolean }): string {
  if (actor.type === "admin") return actor.id;
  if (actor.type === "service") return `service:${actor.id}`;
  if (actor.type === "system") return actor.id;
  return opts.anonymous ? "learner:self" : actor.id;
}

/** The JobEvent actor type of a cancel made by an erasure (no id: the event goes with the job). */
export function eventActorType(actor: DataRightsActor): ActorType {
  return actor.type === "service" || actor.type === "system" ? "system" : actor.type;
}

/**
 * An id that cannot name a stored user (NUL, lone surrogate, absurd length) is NOT_FOUND before
 * any query: PostgreSQL would refuse such text with an error, not an empty answer.
 */
export function assertStorableUserId(userId: string) {
  if (!userId || userId.length > 200 || userId.includes("\u0000") || !userId.isWellFormed())
    throw new AppError("NOT_FOUND", "learner not found");
}
