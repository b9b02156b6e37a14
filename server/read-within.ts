/**
 * Reads a body stream into memory, keeping at most `limit` bytes: a request's body at the web
 * doors, the Runtime API's (web Request or Node IncomingMessage), and a model provider's answer. A declared length over the limit is
 * refused before a byte is read; otherwise reading stops, and the stream is cancelled, as soon as
 * the limit is passed. So an oversize body costs at most `limit` bytes of memory, never its size.
 * `drainUpTo` reads on (keeping nothing) up to that many bytes before refusing, so that a client
 * still sending a slightly oversize body gets the refusal rather than a reset connection.
 * Returns null when the body is over the limit.
 */
export async function readWithin(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null,
  limit: number,
  opts: { declaredLength?: string | null; drainUpTo?: number } = {},
): Promise<Uint8Array | null> {
  const stopAt = Math.max(limit, opts.drainUpTo ?? limit);
  const declared = opts.declaredLength == null ? NaN : Number(opts.declaredLength);
  if (declared > stopAt) {
    await stop(body);
    return null;
  }
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  /** Counts a chunk in; false once past stopAt (the caller stops reading). */
  const take = (value: Uint8Array) => {
    size += value.byteLength;
    if (size > stopAt) return false;
    if (size <= limit) chunks.push(value);
    return true;
  };
  if ("getReader" in body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!take(value)) {
        await reader.cancel().catch(() => {});
        return null;
      }
    }
  } else {
    // Leaving the loop early destroys a Node stream (its connection is cut).
    for await (const value of body) if (!take(value)) return null;
  }
  return size > limit ? null : Buffer.concat(chunks);
}

/** Stops a body that is refused unread: a web stream is cancelled, a Node stream destroyed. */
async function stop(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null) {
  if (!body) return;
  if ("cancel" in body && typeof body.cancel === "function") await body.cancel().catch(() => {});
  else if ("destroy" in body && typeof body.destroy === "function") (body as { destroy(): void }).destroy();
}

/** The same, as UTF-8 text (invalid sequences become U+FFFD). */
export async function readTextWithin(...args: Parameters<typeof readWithin>): Promise<string | null> {
  const bytes = await readWithin(...args);
  return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}
