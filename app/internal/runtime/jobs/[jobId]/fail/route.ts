import { failJob } from "@/server/jobs/results";
import { failRequest } from "@/server/runtime-api/contract";
import { runtimeRoute } from "@/server/runtime-api/route";

export const POST = runtimeRoute(failRequest, ({ body, jobId }) => failJob(jobId, body));
