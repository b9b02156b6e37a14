import { errorAnswer, requireRouteSession } from "@/server/auth/route-guard";
import { getJobFeed } from "@/server/events/job-feed";
import { jobEventStream } from "@/server/events/sse";
import { drainSignal } from "@/server/lifecycle";

export const dynamic = "force-dynamic";

/** Live job changes for the signed-in viewer: a learner sees their own jobs, an admin every job. */
export async function GET(req: Request) {
  const session = await requireRouteSession(req).catch((e: unknown) => errorAnswer(e));
  if (session instanceof Response) return session;
  const jobId = new URL(req.url).searchParams.get("jobId");
  const { id: userId, role } = session.user;
  const stream = jobEventStream(
    getJobFeed(),
    (c) => (role === "admin" || c.userId === userId) && (!jobId || c.id === jobId),
    // Draining ends the stream too: the browser's EventSource reconnects to another instance.
    AbortSignal.any([req.signal, drainSignal()]),
  );
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
