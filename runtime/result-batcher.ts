/**
 * Sends results together without waiting for any timer: when no result request is in flight, the
 * results that end in the same turn of the event loop go at once, in one request (POST /results);
 * results that end while one is in flight wait for it and then go together in the next request, as
 * many as fit (at most `maxItems`, the whole body within `maxBytes`). An idle Runtime thus sends
 * each result alone and immediately (setImmediate: the end of the turn it ended in, no timer); a busy
 * one sends one request for the jobs that ended during the last round trip, and jobs of one claim
 * that end together (short jobs) go in one request, not the first alone and the rest after it.
 * Each caller gets its own answer or error; when the request itself fails, every result in it gets
 * that error (and may be sent again).
 */
export function createResultBatcher<Item, Answer>(opts: {
  /** One request for the items: per item, in order, its answer or its error. */
  send: (items: Item[]) => Promise<Settled<Answer>[]>;
  /** JSON size of one item in the batch body. */
  sizeOf: (item: Item) => number;
  maxItems: number;
  /** The body limit, less the batch's own wrapper. */
  maxBytes: number;
}) {
  type Waiting = { item: Item; size: number; resolve: (a: Answer) => void; reject: (e: unknown) => void };
  const queue: Waiting[] = [];
  let inFlight = false;
  let due = false;

  function next(): Waiting[] {
    const batch: Waiting[] = [];
    let bytes = 0;
    while (queue.length && batch.length < opts.maxItems) {
      const size = queue[0]!.size + 1; // the comma between items
      if (batch.length && bytes + size > opts.maxBytes) break;
      bytes += size;
      batch.push(queue.shift()!);
    }
    return batch;
  }

  function pump() {
    if (inFlight || !queue.length) return;
    const batch = next();
    inFlight = true;
    opts
      .send(batch.map((w) => w.item))
      .then(
        (answers) =>
          batch.forEach((w, i) => {
            const a = answers[i]!;
            if (a.ok) w.resolve(a.value);
            else w.reject(a.error);
          }),
        (e) => batch.forEach((w) => w.reject(e)),
      )
      .finally(() => {
        inFlight = false;
        pump();
      });
  }

  return {
    /** The item's answer, once the request it went in has been answered. */
    submit(item: Item): Promise<Answer> {
      return new Promise<Answer>((resolve, reject) => {
        queue.push({ item, size: opts.sizeOf(item), resolve, reject });
        // At the end of this turn, so that every result ending in it goes in the same request.
        if (due || inFlight) return;
        due = true;
        setImmediate(() => {
          due = false;
          pump();
        });
      });
    },
    /** Whether an item fits a batch request at all (else it goes to the single result endpoint). */
    fits: (item: Item) => opts.sizeOf(item) <= opts.maxBytes,
  };
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
