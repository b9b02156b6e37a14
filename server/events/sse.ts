import type { JobChange, JobFeed } from "./job-feed";

export type ChangeFilter = (change: JobChange) => boolean;

const encoder = new TextEncoder();
const KEEPALIVE_MS = 15_000;

/**
 * Server-Sent Events of job changes for one viewer: `event: job` per change that passes the
 * filter, `event: resync` when the feed lost its connection (the page should re-read its list,
 * as changes may have been missed), and a comment every 15 s so proxies keep the stream open.
 * Every app instance LISTENs to the same NOTIFY channel, so a viewer on any instance sees
 * changes made through any other. Polling the tRPC list is the page's fallback.
 */
export function jobEventStream(feed: JobFeed, filter: ChangeFilter, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const onChange = (c: JobChange) => {
        if (filter(c)) send(`event: job\ndata: ${JSON.stringify(c)}\n\n`);
      };
      const onGap = () => send(`event: resync\ndata: {}\n\n`);
      const onConnected = () => send(`event: resync\ndata: {}\n\n`);
      const keepalive = setInterval(() => send(`: keepalive\n\n`), KEEPALIVE_MS);
      feed.on("change", onChange);
      feed.on("gap", onGap);
      feed.on("connected", onConnected);
      cleanup = () => {
        clearInterval(keepalive);
        feed.off("change", onChange);
        feed.off("gap", onGap);
        feed.off("connected", onConnected);
        cleanup = () => {};
        try {
          controller.close();
        } catch {}
      };
      signal?.addEventListener("abort", () => cleanup(), { once: true });
      send(`retry: 3000\nevent: ready\ndata: ${JSON.stringify({ live: feed.connected })}\n\n`);
    },
    cancel() {
      cleanup();
    },
  });
}
