"use client";

const REOPEN_MIN_MS = 2000;
const REOPEN_MAX_MS = 30_000;

type Handlers = {
  /** The server's first event on a stream: the stream is live. */
  onReady: () => void;
  /** The stream dropped or was refused; it is being reopened. */
  onDown: () => void;
  /** Each (re)opened connection: changes may have been missed meanwhile. */
  onOpen?: () => void;
  /** Named events and their listeners. */
  events: Record<string, (event: MessageEvent<string>) => void>;
};

/**
 * An EventSource that never gives up. The browser retries a dropped connection by itself but
 * closes the stream for good on an error status (a load balancer's 503 while no instance is
 * ready, a restart): then a new one is opened, backing off from 2 s to 30 s, back to 2 s once the
 * server says `ready`. Returns the function that closes it.
 */
export function openEventStream(url: string, h: Handlers): () => void {
  let source: EventSource;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let reopenMs = REOPEN_MIN_MS;
  let closed = false;

  const open = () => {
    source = new EventSource(url);
    source.addEventListener("ready", () => {
      reopenMs = REOPEN_MIN_MS;
      h.onReady();
    });
    for (const [name, listener] of Object.entries(h.events)) source.addEventListener(name, listener as EventListener);
    source.onopen = () => h.onOpen?.();
    source.onerror = () => {
      h.onDown();
      if (closed || source.readyState !== EventSource.CLOSED) return;
      reopen = setTimeout(open, reopenMs);
      reopenMs = Math.min(reopenMs * 2, REOPEN_MAX_MS);
    };
  };
  open();
  return () => {
    closed = true;
    clearTimeout(reopen);
    source.close();
  };
}
