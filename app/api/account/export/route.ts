import { errorAnswer, requireRouteSession } from "@/server/auth/route-guard";
import { exportDownload } from "@/server/learners/download";

export const dynamic = "force-dynamic";

/** "Download my data": everything stored about the signed-in user, as a JSON file. */
export async function GET(req: Request) {
  try {
    const { user } = await requireRouteSession(req);
    return await exportDownload(user.id, { type: "learner", id: user.id });
  } catch (e) {
    return errorAnswer(e);
  }
}
