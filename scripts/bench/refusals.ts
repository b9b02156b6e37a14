import { cpuNow } from "./cpu";

/**
 * What a refusal costs the app: `n` refused calls one after another (each with the body an
 * attacker would send), the app process group's CPU over them (from /proc, 10 ms ticks) less what
 * the idle app used over the same time, per call. Part of `npm run bench:bulkheads`.
 */
export type Refusal = { name: string; n: number; send: (i: number) => Promise<number> };

export async function idleCpuPerMs(appGroup: number, postmaster: number, ms = 3000) {
  const a = cpuNow({ postmaster, appGroup }).app;
  const t = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  return (cpuNow({ postmaster, appGroup }).app - a) / (performance.now() - t);
}

export async function refusalCost(r: Refusal, roles: { appGroup: number; postmaster: number }, idlePerMs: number) {
  const statuses: Record<number, number> = {};
  const before = cpuNow(roles);
  const t = performance.now();
  for (let i = 0; i < r.n; i++) {
    const s = await r.send(i).catch(() => 0);
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  const wall = performance.now() - t;
  const after = cpuNow(roles);
  const appMs = Math.max(0, after.app - before.app - idlePerMs * wall);
  return {
    name: r.name,
    n: r.n,
    statuses: Object.entries(statuses)
      .map(([s, k]) => `${k}× ${s}`)
      .join(", "),
    cpuMsPerCall: Math.round((appMs / r.n) * 1000) / 1000,
    postgresMsPerCall: Math.round(((after.postgres - before.postgres) / r.n) * 1000) / 1000,
    wallMsPerCall: Math.round((wall / r.n) * 100) / 100,
  };
}

/** A POST of `bytes` bytes of JSON-looking text (`{"reviews":[…` padded) with `headers`. */
export function bigPost(url: string, bytes: number, headers: Record<string, string>) {
  const body = Buffer.alloc(bytes, 0x20);
  body.write('{"reviews":[');
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  }).then(async (res) => (await res.arrayBuffer(), res.status));
}
