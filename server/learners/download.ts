import { exportLearnerData } from "./export";
import type { DataRightsActor } from "./actor";

/** A learner's export as a JSON file download (the route handlers of the account page and the console). */
export async function exportDownload(userId: string, actor: DataRightsActor): Promise<Response> {
  const data = await exportLearnerData(userId, actor);
  const day = data.exportedAt.toISOString().slice(0, 10);
  const name =
    actor.type === "learner" ? `my-data-${day}.json` : `learner-${userId.replace(/[^\w-]/g, "_")}-${day}.json`;
  return new Response(JSON.stringify(data, null, 2), {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
