/**
 * Turns at a shared resource, `capacity` at once, handed out one tenant after another: a tenant
 * that asks while others wait joins the round at its end, and each tenant's own waiters go in the
 * order they came. So one tenant's backlog never holds back another's first turn: it waits for at
 * most one turn of every tenant waiting before it. In memory, per process.
 */
export class FairTurns {
  private busy = 0;
  /** Waiters by tenant, in the order the tenants joined the round. */
  private readonly round = new Map<string, (() => void)[]>();

  constructor(private readonly capacity: () => number) {}

  /** Runs `work` in a turn of `tenant`, waiting for it first if every turn is busy. */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    await this.take(tenant);
    try {
      return await work();
    } finally {
      this.give();
    }
  }

  /** Turns in use now and tenants waiting (tests, metrics). */
  stats() {
    let waiting = 0;
    for (const q of this.round.values()) waiting += q.length;
    return { busy: this.busy, waiting, tenantsWaiting: this.round.size };
  }

  private take(tenant: string): Promise<void> {
    if (this.busy < this.capacity() && this.round.size === 0) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const q = this.round.get(tenant);
      if (q) q.push(resolve);
      else this.round.set(tenant, [resolve]);
    });
  }

  private give() {
    this.busy--;
    while (this.busy < this.capacity() && this.round.size > 0) {
      // The tenant at the head of the round gets the turn and, if it waits for more, goes last.
      const [tenant, q] = this.round.entries().next().value as [string, (() => void)[]];
      this.round.delete(tenant);
      const next = q.shift()!;
      if (q.length > 0) this.round.set(tenant, q);
      this.busy++;
      next();
    }
  }
}
