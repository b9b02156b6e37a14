import { jobConfig } from "@/server/config";
import { claimJobs, pollJobs } from "@/server/jobs/lease";
import { pollRequest } from "@/server/runtime-api/contract";
import { runtimeRoute } from "@/server/runtime-api/route";

export const POST = runtimeRoute(pollRequest, async ({ body }) => ({
  jobs: body.claim ? await claimJobs(body) : await pollJobs(body),
  pollIntervalMs: jobConfig.pollIntervalMs,
}));
