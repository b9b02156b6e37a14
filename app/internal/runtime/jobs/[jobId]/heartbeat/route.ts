import { heartbeat } from "@/server/jobs/lease";
import { heartbeatRequest } from "@/server/runtime-api/contract";
import { runtimeRoute } from "@/server/runtime-api/route";

export const POST = runtimeRoute(heartbeatRequest, ({ body, jobId }) => heartbeat(jobId, body));
