import { submitResult } from "@/server/jobs/results";
import { resultRequest } from "@/server/runtime-api/contract";
import { runtimeRoute } from "@/server/runtime-api/route";

export const POST = runtimeRoute(resultRequest, ({ body, jobId }) => submitResult(jobId, body));
