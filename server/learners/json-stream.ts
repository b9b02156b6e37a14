/**
 * A JSON document written piece by piece into a byte stream, waiting whenever the reader is
 * behind (backpressure), so a writer never holds more than one piece plus a small buffer. Values
 * are serialised by JSON.stringify (dates as ISO strings, bigints as strings).
 *
 * The reader's progress is the bytes it has taken from the stream, in pieces of at most
 * PIECE_BYTES: a route's answer is taken by the server's pipe only once the socket has drained
 * what it was given before (Node's `drain`), so this is what the client's connection accepted,
 * give or take a piece and the kernel's buffers, not how often the writer woke. Two limits end a
 * download with an error (the reader sees a broken download, never a short valid file, and the
 * writer's next write throws):
 * - `minBytesPerSecond` over `rateWindowMs`: in each window in which the writer waited on the
 *   reader for at least half the window, the reader must have taken that rate over the time waited
 *   (a reader that stalls or trickles below it is cut; a slow steady one is not);
 * - `deadline` (ms since the epoch): the whole download, however fast.
 */
const FLUSH_AT = 64 * 1024;
export const PIECE_BYTES = 16 * 1024;

const json = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";

/** A download ended by the server for its reader's pace or its total time. */
export class ReaderTooSlow extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReaderTooSlow";
  }
}

export type WriterLimits = {
  minBytesPerSecond?: number;
  rateWindowMs?: number;
  deadline?: number;
  pieceBytes?: number;
};

export function jsonWriter(limits: WriterLimits = {}) {
  const encoder = new TextEncoder();
  const pieceBytes = limits.pieceBytes ?? PIECE_BYTES;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let wake: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  let ended = false;
  let buffer = "";
  let first = true;
  /** Bytes handed to the stream, bytes the reader has taken, and how long the writer waited on it. */
  let handed = 0;
  let taken = 0;
  let waitedMs = 0;
  let waitingSince: number | null = null;
  const timers: ReturnType<typeof setTimeout>[] = [];

  const stopTimers = () => timers.splice(0).forEach((t) => clearTimeout(t));
  /** Ends the stream: by the reader (cancel), by a limit (cut), by the writer (fail, close). */
  const end = (e?: unknown) => {
    if (ended) return;
    ended = true;
    stopTimers();
    if (e !== undefined) controller.error(e);
    const w = wake;
    wake = null;
    w?.reject(e ?? new Error("the reader went away"));
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        // The queue holds at most one piece and pull comes once it is empty: all handed is taken.
        taken = handed;
        if (waitingSince !== null) waitedMs += Date.now() - waitingSince;
        waitingSince = null;
        const w = wake;
        wake = null;
        w?.resolve();
      },
      cancel: () => end(),
    },
    { highWaterMark: 1 },
  );

  if (limits.deadline !== undefined) {
    const t = setTimeout(
      () => end(new ReaderTooSlow("the download reached its total time")),
      Math.max(0, limits.deadline - Date.now()),
    );
    t.unref?.();
    timers.push(t);
  }
  const minRate = limits.minBytesPerSecond;
  if (minRate) {
    const windowMs = limits.rateWindowMs ?? 30_000;
    let lastWaited = 0;
    let lastTaken = 0;
    const t = setInterval(() => {
      const waited = waitedMs + (waitingSince === null ? 0 : Date.now() - waitingSince);
      const dWaited = waited - lastWaited;
      const dTaken = taken - lastTaken;
      [lastWaited, lastTaken] = [waited, taken];
      if (dWaited >= windowMs / 2 && dTaken < (minRate * dWaited) / 1000)
        end(
          new ReaderTooSlow(
            `the reader took ${dTaken} bytes in ${Math.round(dWaited)} ms, under ${minRate} bytes a second`,
          ),
        );
    }, windowMs);
    t.unref?.();
    timers.push(t as unknown as ReturnType<typeof setTimeout>);
  }

  /** Waits until the reader has taken what it was given (or the download ends). */
  function readerTakes() {
    return new Promise<void>((resolve, reject) => {
      waitingSince = Date.now();
      wake = { resolve, reject };
    });
  }

  async function flush(force = false) {
    if (ended) throw new Error("the reader went away");
    if (!force && buffer.length < FLUSH_AT) return;
    const bytes = encoder.encode(buffer);
    buffer = "";
    for (let at = 0; at < bytes.length; at += pieceBytes) {
      const piece = bytes.subarray(at, at + pieceBytes);
      controller.enqueue(piece);
      handed += piece.byteLength;
      while (!ended && (controller.desiredSize ?? 1) <= 0) await readerTakes();
      if (ended) throw new Error("the reader went away");
    }
  }
  const write = (text: string) => {
    buffer += text;
    return flush();
  };

  return {
    stream,
    /** `{` and the leading fields. */
    open: (fields: Record<string, unknown>) =>
      write(
        `{${Object.entries(fields)
          .map(([k, v]) => `${json(k)}:${json(v)}`)
          .join(",\n")}`,
      ),
    field: (key: string, value: unknown) => write(`,\n${json(key)}:${json(value)}`),
    openList: (key: string) => {
      first = true;
      return write(`,\n${json(key)}:[`);
    },
    item: (value: unknown) => {
      const sep = first ? "\n" : ",\n";
      first = false;
      return write(sep + json(value));
    },
    closeList: () => void (buffer += "]"),
    close: async () => {
      buffer += "}\n";
      await flush(true);
      if (ended) throw new Error("the reader went away");
      ended = true;
      stopTimers();
      controller.close();
    },
    /** Ends the stream with an error: the reader sees a broken download, never a short valid file. */
    fail: (e: unknown) => end(e),
  };
}
