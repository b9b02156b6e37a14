/**
 * Reads a body stream into memory, keeping at most `limit` bytes: a request's body at the web
 * doors, the Runtime API's, and a model provider's answer. A declared length over the limit is
 * refused before a byte is read; otherwise reading stops, and the stream is cancelled, as soon as
 * the limit is passed. So an oversize body costs at most `limit` bytes of memory, never its size.
 * `drainUpTo` reads on (keeping nothing) up to that many bytes before refusing, so that a client
 * still sending a slightly oversize body gets the refusal rather than a reset connection.
 * Returns null when the body is over the limit.
 */
export async function readWithin(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  opts: { declaredLength?: string | null; drainUpTo?: number } = {},
): Promise<Uint8Array | null> {
  const stopAt = Math.max(limit, opts.drainUpTo ?? limit);
  const declared = opts.declaredLength == null ? NaN : Number(opts.declaredLength);
  if (declared > stopAt) {
    await body?.cancel().catch(() => {});
    return null;
  }
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > stopAt) {
      await reader.cancel().catch(() => {});
      return null;
    }
    if (size <= limit) chunks.push(value);
  }
  return size > limit ? null : Buffer.concat(chunks);
}

/** The same, as UTF-8 text (invalid sequences become U+FFFD). */
export async function readTextWithin(...args: Parameters<typeof readWithin>): Promise<string | null> {
  const bytes = await readWithin(...args);
  return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}
