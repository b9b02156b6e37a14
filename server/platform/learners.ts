import type { z } from "zod";
import { getDb } from "../db";
import { AppError, isUniqueViolation } from "../errors";
import { hashKey } from "../key-hash";
import { setConsent } from "../jobs/consent";
import type { Actor } from "../jobs/state-machine";
import type { learnerAnswer, learnerBody } from "./schemas";

type LearnerInput = z.infer<typeof learnerBody>;
type LearnerAnswer = z.infer<typeof learnerAnswer>;

/** The learner the platform knows by this id, or 404. */
export async function findLearner(externalId: string) {
  const user = await getDb().user.findUnique({ where: { externalId }, select: { id: true, role: true } });
  // An admin is never the platform's learner, whatever an external id says (export, erasure, writes).
  if (!user || user.role !== "learner") throw new AppError("NOT_FOUND", `no learner has externalId ${externalId}`);
  return { id: user.id, externalId };
}

/**
 * A learner made without an email gets one that can never receive mail (RFC 2606's .invalid),
 * derived from the external id so that it is stable and unique; an OIDC sign-in cannot link to it.
 */
export const placeholderEmail = (externalId: string) =>
  `learner-${hashKey(externalId).slice(0, 24)}@platform-learners.invalid`;

const select = {
  id: true,
  name: true,
  email: true,
  locale: true,
  role: true,
  externalId: true,
  consent: { select: { granted: true } },
} as const;

/**
 * Creates or updates the learner with this external id (PUT /api/v1/learners/{externalId}).
 * Race-safe: the external id and the email are unique columns, so of two concurrent creations one
 * inserts and the other fails on the index and runs again as an update. A service key manages only
 * the learners it made (docs/contract.md#learners-and-their-data "Trust at the edges"): an email that belongs to any other account
 * is a 409 EMAIL_IN_USE, never a link.
 */
export async function upsertLearner(externalId: string, input: LearnerInput, actor: Actor) {
  for (let attempt = 1; ; attempt++) {
    try {
      const { user, created } = await writeLearner(externalId, input);
      const consent = input.aiConsent;
      if (consent !== undefined && consent !== (user.consent?.granted ?? false))
        await setConsent(user.id, consent, actor);
      return answer(user, created, consent ?? user.consent?.granted ?? false);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // Three lost races in a row: the email is what keeps colliding.
      if (attempt >= 3) throw emailInUse();
    }
  }
}

async function writeLearner(externalId: string, input: LearnerInput) {
  const db = getDb();
  const email = input.email?.toLowerCase();
  const fields = { name: input.name, ...(input.locale !== undefined ? { locale: input.locale } : {}) };
  const existing = await db.user.findUnique({ where: { externalId }, select: { id: true, role: true } });
  if (existing?.role === "admin")
    throw new AppError("FORBIDDEN", "this external id names an account the platform API does not manage");
  if (existing) {
    if (email) await assertEmailFree(email, existing.id);
    const user = await db.user.update({
      where: { id: existing.id },
      data: { ...fields, ...(email ? { email } : {}) },
      select,
    });
    return { user, created: false };
  }
  if (email) {
    const owner = await db.user.findUnique({ where: { email }, select: { id: true, externalId: true } });
    // Made by a concurrent call of this same PUT after the lookup above: this call is its update.
    if (owner?.externalId === externalId) {
      return { user: await db.user.update({ where: { id: owner.id }, data: fields, select }), created: false };
    }
    // Any other account (an admin, an invited or signed-up learner, another platform learner) is
    // never linked by an email a service key sends: that would hand the key the account.
    if (owner) throw emailInUse();
    await assertNotInvited(email);
  }
  const user = await db.user.create({
    data: { ...fields, externalId, email: email ?? placeholderEmail(externalId), role: "learner" },
    select,
  });
  return { user, created: true };
}

async function assertEmailFree(email: string, userId: string) {
  const owner = await getDb().user.findUnique({ where: { email }, select: { id: true } });
  if (owner && owner.id !== userId) throw emailInUse();
  if (!owner) await assertNotInvited(email);
}

/**
 * A pending invitation's email is another person's account in the making: a key that took it
 * would get the account she then completes. (Acceptance refuses an account a platform made too,
 * for a PUT that races the invitation.) Revoking the invitation frees the email.
 */
async function assertNotInvited(email: string) {
  const invited = await getDb().invitation.findFirst({ where: { email, status: "pending" }, select: { id: true } });
  if (invited) throw emailInUse();
}

const emailInUse = () => new AppError("EMAIL_IN_USE", "this email belongs to another account");

function answer(
  user: { name: string; email: string; locale: string | null; externalId: string | null },
  created: boolean,
  aiConsent: boolean,
): LearnerAnswer {
  return {
    externalId: user.externalId!,
    name: user.name,
    email: user.email,
    locale: user.locale === "zh-CN" || user.locale === "en" ? user.locale : null,
    aiConsent,
    created,
  };
}
