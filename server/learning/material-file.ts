import { AppError } from "../errors";
import { LIMITS, plainLine } from "../security/learner-text";
import { cleanMaterialText, MATERIAL_TEXT_MAX_BYTES } from "./materials";

/** What a browser may call a .txt or .md file; an empty type is what some systems send for .md. */
const TEXT_TYPES = new Set(["", "text/plain", "text/markdown", "text/x-markdown", "application/octet-stream"]);
const EXTENSIONS = [".txt", ".md", ".markdown"];

/**
 * Reads an uploaded material file: a .txt or .md file of at most 200 KB of UTF-8 text. Anything
 * else (another extension or type, invalid UTF-8, a NUL byte: a binary file renamed) is refused
 * with a sentence the learner can act on. Nothing is stored: the text goes into the material form,
 * which saves it through the same checks as typed text.
 */
export function readMaterialFile(file: { name: string; type: string; bytes: Uint8Array }) {
  const name = file.name.toLowerCase();
  const ext = EXTENSIONS.find((e) => name.endsWith(e));
  const type = file.type.split(";")[0]!.trim().toLowerCase();
  if (!ext || !TEXT_TYPES.has(type))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "only .txt and .md files can be uploaded as a material");
  if (file.bytes.byteLength > MATERIAL_TEXT_MAX_BYTES)
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `the file is ${Math.ceil(file.bytes.byteLength / 1024)} KB; at most 200 KB is allowed`,
      { limitBytes: MATERIAL_TEXT_MAX_BYTES, bytes: file.bytes.byteLength },
    );
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file.bytes);
  } catch {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "the file is not UTF-8 text; save it as plain text (UTF-8) and try again",
    );
  }
  if (text.includes("\u0000")) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "the file contains binary data, not text");
  const base = plainLine(file.name.slice(0, file.name.length - ext.length)).slice(0, LIMITS.materialTitle);
  return { title: base || "Untitled material", text: cleanMaterialText(text.replace(/^\uFEFF/, "")) };
}
