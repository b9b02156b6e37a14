/**
 * A JSON document written piece by piece into a byte stream, waiting whenever the reader is
 * behind (backpressure), so a writer never holds more than one piece plus a small buffer. Values
 * are serialised by JSON.stringify (dates as ISO strings, bigints as strings). A reader that takes
 * nothing for `sendTimeoutMs` ends the stream with an error (the download breaks) and the writer's
 * next write throws, so a stalled reader holds the writer for at most that long.
 */
const FLUSH_AT = 64 * 1024;

const json = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";

export class SendTimeout extends Error {
  constructor(ms: number) {
    super(`the reader took nothing for ${ms} ms`);
    this.name = "SendTimeout";
  }
}

export function jsonWriter(opts: { sendTimeoutMs?: number } = {}) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let wake: (() => void) | null = null;
  let cancelled = false;
  let buffer = "";
  let first = true;
  const wakeUp = () => {
    wake?.();
    wake = null;
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: wakeUp,
      cancel: () => {
        cancelled = true;
        wakeUp();
      },
    },
    { highWaterMark: 1 },
  );

  /** Waits until the reader pulls (or goes away); past the send timeout the stream ends in an error. */
  function readerTakes() {
    return new Promise<void>((resolve, reject) => {
      const ms = opts.sendTimeoutMs;
      const timer =
        ms === undefined
          ? null
          : setTimeout(() => {
              wake = null;
              cancelled = true;
              const e = new SendTimeout(ms);
              controller.error(e);
              reject(e);
            }, ms);
      wake = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
  }

  async function flush(force = false) {
    if (cancelled) throw new Error("the reader went away");
    if (!force && buffer.length < FLUSH_AT) return;
    if (buffer) controller.enqueue(encoder.encode(buffer));
    buffer = "";
    while (!cancelled && (controller.desiredSize ?? 1) <= 0) await readerTakes();
    if (cancelled) throw new Error("the reader went away");
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
      controller.close();
    },
    /** Ends the stream with an error: the reader sees a broken download, never a short valid file. */
    fail: (e: unknown) => {
      if (!cancelled) controller.error(e);
    },
  };
}
