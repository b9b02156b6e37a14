import { errorAnswer, requireRouteSession } from "@/server/auth/route-guard";
import { AppError } from "@/server/errors";
import { exportDownload } from "@/server/learners/download";

export const dynamic = "force-dynamic";

/** An admin downloads any learner's data (audited as learner.export by that admin). */
export async function GET(req: Request, { params }: { params: Promise<{ userId: string }> }) {
  try {
    const { user } = await requireRouteSession(req, { admin: true });
    const { userId } = await params;
    if (!userId || userId.length > 64) throw new AppError("NOT_FOUND", "learner not found");
    return await exportDownload(userId, { type: "admin", id: user.id });
  } catch (e) {
    return errorAnswer(e);
  }
}
