import { AppError } from "../errors";

/**
 * How deep a JSON request body may nest, at every door (Runtime API, platform API, tRPC, auth).
 * Well above any real body (a Runtime's rejected output may nest 64 levels, inside its fail body);
 * a body nested thousands deep is refused as 400 MALFORMED_JSON before it is parsed, so no schema,
 * walker or parser ever sees it.
 */
export const MAX_JSON_DEPTH = 100;

const QUOTE = 34;
const BACKSLASH = 92;
const OPENERS = new Set([91, 123]); // [ {
const CLOSERS = new Set([93, 125]); // ] }

/**
 * Whether JSON text nests deeper than `max`, read without parsing: brackets inside strings do not
 * count. Takes the text or its UTF-8 bytes (the ASCII bytes it looks for never occur inside a
 * multi-byte character). Not a validator: text that is not JSON is the parser's to refuse.
 */
export function nestsDeeperThan(text: string | Uint8Array, max = MAX_JSON_DEPTH): boolean {
  const at = typeof text === "string" ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

export const tooDeepMessage = `request body is nested more than ${MAX_JSON_DEPTH} levels deep`;

/** 400 MALFORMED_JSON for a body nested deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(text: string | Uint8Array) {
  if (nestsDeeperThan(text)) throw new AppError("MALFORMED_JSON", tooDeepMessage);
}
