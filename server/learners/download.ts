import { readSourceHeader } from "../read-replica";
import { exportLearnerStream } from "./export";
import type { DataRightsActor } from "./actor";

/**
 * A learner's export as a JSON file download, streamed (the route handlers of the account page and
 * the console). An admin's reads its pages from the standby when it serves the console's reads,
 * and says where in X-Read-Source; a learner's own stays on the primary.
 */
export async function exportDownload(userId: string, actor: DataRightsActor): Promise<Response> {
  const { exportedAt, stream, readFrom } = await exportLearnerStream(userId, actor, {
    standby: actor.type === "admin",
  });
  const day = exportedAt.toISOString().slice(0, 10);
  const name =
    actor.type === "learner" ? `my-data-${day}.json` : `learner-${userId.replace(/[^\w-]/g, "_")}-${day}.json`;
  return new Response(stream, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...(readFrom ? { "x-read-source": readSourceHeader(readFrom) } : {}),
    },
  });
}
