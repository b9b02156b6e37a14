import { errorAnswer, requireRouteSession } from "@/server/auth/route-guard";
import { AppError } from "@/server/errors";
import { readMaterialFile } from "@/server/learning/material-file";
import { MATERIAL_TEXT_MAX_BYTES } from "@/server/learning/materials";
import { limitRequestBody } from "@/server/security/body-limit";

export const dynamic = "force-dynamic";

/** Room for the multipart framing around a file at the limit. */
const FORM_OVERHEAD_BYTES = 16 * 1024;

/**
 * Reads an uploaded .txt/.md file (multipart field "file") for the material form and answers
 * {title, text}; it stores nothing (the form saves through materials.create). 413 over 200 KB,
 * 415 for another type or binary content.
 */
export async function POST(request: Request) {
  try {
    await requireRouteSession(request);
    const req = await limitRequestBody(request, MATERIAL_TEXT_MAX_BYTES + FORM_OVERHEAD_BYTES);
    if (req instanceof Response) return req;
    let file: FormDataEntryValue | null;
    try {
      file = (await req.formData()).get("file");
    } catch {
      throw new AppError("INVALID_REQUEST", 'send the file as multipart/form-data in the field "file"');
    }
    if (!file || typeof file === "string") throw new AppError("INVALID_REQUEST", 'no file in the field "file"');
    const bytes = new Uint8Array(await file.arrayBuffer());
    return Response.json(readMaterialFile({ name: file.name, type: file.type, bytes }), {
      headers: { "cache-control": "no-store" },
    });
  } catch (e) {
    return errorAnswer(e);
  }
}
