import { lockJob } from "@/server/jobs/lease";
import { lockRequest } from "@/server/runtime-api/contract";
import { runtimeRoute } from "@/server/runtime-api/route";

export const POST = runtimeRoute(lockRequest, ({ body, jobId }) => lockJob(jobId, body.runtimeInstanceId));
