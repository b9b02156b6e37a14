import net from "node:net";
import { getDb } from "../../server/db";
import { startBulkRun } from "../../server/admin/bulk";
import { createServiceKey } from "../../server/platform/service-keys";
import { createLearner, uid } from "../../tests/helpers/factories";
import { setPassword, signedInCookie } from "../../tests/helpers/auth";
import { createJobs } from "../../tests/system/jobs";

/**
 * One tenant's worst beside another learner, on an app at `url` (the bulkheads system test and
 * `npm run bench:bulkheads`): an attacker with a 10 MB export, `heldJobs` of its jobs held back a
 * day (the bulk run's scope; a Runtime started afterwards leaves them), the other learner, both
 * signed in, and a service key with a learner of its own to flood with activity. Import it once
 * DATABASE_URL is set.
 */
export async function prepareBulkheadAttack(opts: { url: string; password: string; heldJobs: number; label: string }) {
  const { url, password } = opts;
  const [attacker, other] = [await createLearner(), await createLearner()];
  for (const l of [attacker, other]) await setPassword(l.user.id, password);
  const attackerCookie = await signedInCookie(attacker.user.email, password);
  const otherCookie = await signedInCookie(other.user.email, password);
  // A 10 MB export: 50 materials of 200 KB.
  const text = "Chlorophyll absorbs red and blue light. ".repeat(6000).slice(0, 200 * 1024);
  await getDb().material.createMany({
    data: Array.from({ length: 50 }, (_, i) => ({ userId: attacker.user.id, title: `M${i}`, content: text })),
  });
  const held = await createJobs([attacker], opts.heldJobs);
  await getDb().aiRuntimeJob.updateMany({
    where: { id: { in: held } },
    data: { runAfter: new Date(Date.now() + 86_400_000) },
  });
  const key = (await createServiceKey(uid("svc"), ["learners:write", "activity:write"], opts.label)).key;
  const ext = uid("ext");
  const put = await fetch(`${url}/api/v1/learners/${ext}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Flood" }),
  });
  await put.text();
  return { attacker, other, attackerCookie, otherCookie, held, key, ext, learnerStatus: put.status };
}

export type BulkheadSetup = Awaited<ReturnType<typeof prepareBulkheadAttack>>;

/**
 * The attack: twelve exports that nobody reads past their head (their statuses awaited), then one
 * key's activity calls of 1,000 reviews of one card, `floodCalls` at a time (each caller calls again
 * while `flooding()` says so), and a bulk cancel of the held jobs. `flood` resolves to the calls'
 * statuses (0: no answer); `closeExports` lets the downloads go.
 */
export async function startBulkheadAttack(
  url: string,
  setup: BulkheadSetup,
  opts: { floodCalls: number; flooding?: () => boolean },
) {
  const downloads = Array.from({ length: 12 }, () => neverRead(url, "/api/account/export", setup.attackerCookie));
  const exportStatuses = await Promise.all(downloads.map((d) => d.status));
  const reviews = Array.from({ length: 1000 }, (_, i) => ({
    externalId: `flood-${i}`,
    cardExternalId: "one-card",
    front: "F",
    back: "B",
    rating: "good",
    reviewedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  }));
  const flooding = opts.flooding ?? (() => false);
  const floodStatuses: number[] = [];
  const flood = Promise.all(
    Array.from({ length: opts.floodCalls }, async () => {
      do {
        const status = await fetch(`${url}/api/v1/learners/${setup.ext}/activity`, {
          method: "POST",
          headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json" },
          body: JSON.stringify({ reviews }),
        }).then(
          async (r) => (await r.text(), r.status),
          () => 0,
        );
        floodStatuses.push(status);
      } while (flooding());
    }),
  ).then(() => floodStatuses);
  const bulk = await startBulkRun("cancel", { ids: setup.held }, setup.held.length, setup.attacker.user.id);
  return {
    exportStatuses,
    flood,
    bulk,
    closeExports: () => downloads.forEach((d) => d.socket.destroy()),
  };
}

/** A learner's own list, `n` times one after another over HTTP: each call's milliseconds. */
export async function listTimes(url: string, cookie: string, n: number) {
  const ms: number[] = [];
  const input = encodeURIComponent("{}");
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/api/trpc/jobs.list?input=${input}`, { headers: { cookie } });
    await res.text();
    const elapsed = performance.now() - t;
    if (res.status !== 200) throw new Error(`jobs.list answered ${res.status}`);
    ms.push(elapsed);
  }
  return ms;
}

/** A GET of `path` over a raw socket that reads the answer's head and then stops reading. */
function neverRead(url: string, path: string, cookie: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const status = new Promise<number>((resolve, reject) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? 0));
    });
    socket.once("error", reject);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${cookie}\r\n\r\n`);
  return { status, socket };
}
