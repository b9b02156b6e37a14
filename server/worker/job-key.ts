import { activeCredential } from "../credentials";
import { getDb } from "../db";
import { AppError } from "../errors";
import { JobFailure } from "../pipeline/errors";
import { selectProvider, type JobModel, type ProviderSettings } from "../providers/select";
import type { Provider } from "../providers/types";
import { decryptSecret } from "../security/secret-box";

/**
 * The provider for a job the worker holds. A learner's own DeepSeek key is never part of a step's
 * output (Inngest stores step output in its run state): the provider reads and decrypts it inside
 * the model call, that is inside the model-inference step, and only while the worker holds the
 * attempt.
 */
export function workerProvider(
  jobId: string,
  lease: { runtimeInstanceId: string; attemptNo: number },
  model: JobModel,
  settings: ProviderSettings,
): Provider {
  if (model.apiKeyMode !== "user_deepseek_key" || settings.provider === "local") return selectProvider(model, settings);
  return {
    name: "deepseek",
    async infer(req) {
      const apiKey = await leaseHolderKey(jobId, lease.runtimeInstanceId, lease.attemptNo);
      return selectProvider({ ...model, apiKey }, settings).infer(req);
    },
  };
}

/** The learner's current key, for the holder of the job's attempt only (the lock answer's rule). */
async function leaseHolderKey(
  jobId: string,
  runtimeInstanceId: string,
  attemptNo: number,
): Promise<string | undefined> {
  const db = getDb();
  const job = await db.aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: { userId: true, lockedBy: true, attemptNo: true },
  });
  if (!job) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
  if (job.lockedBy !== runtimeInstanceId || job.attemptNo !== attemptNo)
    throw new JobFailure("TEMPORARY_PROVIDER_ERROR", "the worker no longer holds this attempt");
  const credential = await activeCredential(db, job.userId, { ciphertext: true });
  return credential ? decryptSecret(credential.ciphertext) : undefined;
}
