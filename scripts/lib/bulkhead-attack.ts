import net from "node:net";
import { getDb } from "../../server/db";
import { startBulkRun } from "../../server/admin/bulk";
import { createServiceKey } from "../../server/platform/service-keys";
import { createLearner, uid } from "../../tests/helpers/factories";
import { setPassword, signedInCookie } from "../../tests/helpers/auth";
import { createJobs } from "../../tests/system/jobs";

/**
 * One tenant's worst beside another learner, on an app at `url` (the bulkheads system test and
 * `npm run bench:bulkheads`): an attacker with a 10 MB export and two accomplices (free accounts
 * with a 2 MB export each), `heldJobs` of the attacker's jobs held back a day (the bulk run's
 * scope; a Runtime started afterwards leaves them), the other learner and an admin, all signed in,
 * a service key with a learner of its own to flood with activity, and another key with a learner
 * of its own (the platform's export beside the attack). Import it once DATABASE_URL is set.
 */
export async function prepareBulkheadAttack(opts: { url: string; password: string; heldJobs: number; label: string }) {
  const { url, password } = opts;
  const [attacker, other, admin] = [
    await createLearner(),
    await createLearner(),
    await createLearner({ role: "admin" }),
  ];
  const accomplices = [await createLearner(), await createLearner()];
  for (const l of [attacker, other, admin, ...accomplices]) await setPassword(l.user.id, password);
  const attackerCookie = await signedInCookie(attacker.user.email, password);
  const otherCookie = await signedInCookie(other.user.email, password);
  const adminCookie = await signedInCookie(admin.user.email, password);
  const accompliceCookies = [];
  for (const a of accomplices) accompliceCookies.push(await signedInCookie(a.user.email, password));
  // A 10 MB export: 50 materials of 200 KB; the accomplices' 2 MB, the other learner's 400 KB.
  const text = "Chlorophyll absorbs red and blue light. ".repeat(6000).slice(0, 200 * 1024);
  const materials = (userId: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ userId, title: `M${i}`, content: text }));
  await getDb().material.createMany({
    data: [
      ...materials(attacker.user.id, 50),
      ...accomplices.flatMap((a) => materials(a.user.id, 10)),
      ...materials(other.user.id, 2),
    ],
  });
  const held = await createJobs([attacker], opts.heldJobs);
  await getDb().aiRuntimeJob.updateMany({
    where: { id: { in: held } },
    data: { runAfter: new Date(Date.now() + 86_400_000) },
  });
  const scopes = ["learners:write", "activity:write", "data:export"] as const;
  const key = (await createServiceKey(uid("svc"), [...scopes], opts.label)).key;
  const ext = uid("ext");
  const otherKey = (await createServiceKey(uid("svc"), [...scopes], opts.label)).key;
  const otherExt = uid("ext");
  const statuses: number[] = [];
  for (const [k, e, name] of [
    [key, ext, "Flood"],
    [otherKey, otherExt, "Beside"],
  ]) {
    const put = await fetch(`${url}/api/v1/learners/${e}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    await put.text();
    statuses.push(put.status);
  }
  return {
    attacker,
    other,
    admin,
    attackerCookie,
    otherCookie,
    adminCookie,
    accompliceCookies,
    held,
    key,
    ext,
    otherKey,
    otherExt,
    learnerStatus: Math.max(...statuses),
  };
}

export type BulkheadSetup = Awaited<ReturnType<typeof prepareBulkheadAttack>>;

/**
 * The attack: every export download the attackers can hold, read past their head by nobody (their
 * statuses awaited) — twelve tries of the attacker's, three of each accomplice's, five of the
 * flooding key's — then that key's activity calls of 1,000 reviews of one card, `floodCalls` at a
 * time (each caller calls again while `flooding()` says so), and a bulk cancel of the held jobs.
 * `flood` resolves to the calls' statuses (0: no answer); `closeExports` lets the downloads go.
 */
export async function startBulkheadAttack(
  url: string,
  setup: BulkheadSetup,
  opts: { floodCalls: number; flooding?: () => boolean },
) {
  const held = await holdExports(url, setup);
  const flood = startFlood(url, setup, opts.floodCalls, opts.flooding ?? (() => false));
  const bulk = await startBulkRun("cancel", { ids: setup.held }, setup.held.length, setup.attacker.user.id);
  return { ...held, flood, bulk };
}

/** Every export download the attackers can hold, read past its head by nobody: their statuses. */
export async function holdExports(url: string, setup: BulkheadSetup) {
  const cookie = (c: string) => ({ cookie: c });
  const downloads = Array.from({ length: 12 }, () =>
    neverRead(url, "/api/account/export", cookie(setup.attackerCookie)),
  );
  const exportStatuses = await Promise.all(downloads.map((d) => d.status));
  const accompliceDownloads = setup.accompliceCookies.map((c) =>
    Array.from({ length: 3 }, () => neverRead(url, "/api/account/export", cookie(c))),
  );
  const accompliceStatuses = await Promise.all(accompliceDownloads.map((ds) => Promise.all(ds.map((d) => d.status))));
  const keyDownloads = Array.from({ length: 5 }, () =>
    neverRead(url, `/api/v1/learners/${setup.ext}/export`, { authorization: `Bearer ${setup.key}` }),
  );
  const keyExportStatuses = await Promise.all(keyDownloads.map((d) => d.status));
  const all = [...downloads, ...accompliceDownloads.flat(), ...keyDownloads];
  return {
    exportStatuses,
    accompliceStatuses,
    keyExportStatuses,
    closeExports: () => all.forEach((d) => d.socket.destroy()),
  };
}

/**
 * The flooding key's activity calls of 1,000 reviews of one card, `calls` at a time, each caller
 * calling again while `flooding()` says so: resolves to the calls' statuses (0: no answer).
 */
export function startFlood(url: string, setup: BulkheadSetup, calls: number, flooding: () => boolean) {
  const reviews = Array.from({ length: 1000 }, (_, i) => ({
    externalId: `flood-${i}`,
    cardExternalId: "one-card",
    front: "F",
    back: "B",
    rating: "good",
    reviewedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  }));
  const floodStatuses: number[] = [];
  return Promise.all(
    Array.from({ length: calls }, async () => {
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
}

/**
 * The exports beside the attack, read to their end: the other learner's own, the console's of her
 * (the admin's) and the platform's (the other key's learner). Each one's status, size, and whether
 * it parsed whole as the learner named.
 */
export async function othersExports(url: string, setup: BulkheadSetup) {
  const read = async (
    path: string,
    headers: Record<string, string>,
    id: (doc: { account: Record<string, unknown> }) => boolean,
  ) => {
    const t = performance.now();
    const res = await fetch(`${url}${path}`, { headers });
    const text = await res.text();
    let whole = false;
    try {
      whole = id(JSON.parse(text));
    } catch {
      whole = false;
    }
    return { status: res.status, bytes: text.length, whole, ms: Math.round(performance.now() - t) };
  };
  return Promise.all([
    read("/api/account/export", { cookie: setup.otherCookie }, (d) => d.account.id === setup.other.user.id),
    read(
      `/api/admin/learners/${setup.other.user.id}/export`,
      { cookie: setup.adminCookie },
      (d) => d.account.id === setup.other.user.id,
    ),
    read(
      `/api/v1/learners/${setup.otherExt}/export`,
      { authorization: `Bearer ${setup.otherKey}` },
      (d) => d.account.externalId === setup.otherExt,
    ),
  ]);
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
function neverRead(url: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const status = new Promise<number>((resolve, reject) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? 0));
    });
    socket.once("error", reject);
  });
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines.join("")}\r\n`);
  return { status, socket };
}
