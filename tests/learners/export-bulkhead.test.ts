import { describe, expect, it } from "vitest";
import { getDb, getPool } from "@/server/db";
import { GET as accountExport } from "@/app/api/account/export/route";
import { GET as consoleExport } from "@/app/api/admin/learners/[userId]/export/route";
import { exportsNow } from "@/server/bulkheads";
import { setting } from "@/server/config";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { eventually } from "../helpers/eventually";
import { createLearner, uid } from "../helpers/factories";
import { GET as apiGet } from "@/app/api/v1/[...path]/route";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * An export never holds a database connection while it waits on its reader, a stalled reader
 * ends its download, each tenant keeps at most its own downloads open, and nobody's open
 * downloads keep another tenant's export from completing.
 */
async function bigLearner(materials = 12, role: "learner" | "admin" = "learner") {
  const learner = await createLearner({ role });
  const password = `pw-${uid()}`;
  await setPassword(learner.user.id, password);
  const text = "Chlorophyll absorbs red and blue light. ".repeat(6000).slice(0, 200 * 1024);
  await getDb().material.createMany({
    data: Array.from({ length: materials }, (_, i) => ({ userId: learner.user.id, title: `M${i}`, content: text })),
  });
  return { ...learner, cookie: await signedInCookie(learner.user.email, password) };
}

const download = (cookie: string) =>
  accountExport(new Request(`${APP_URL}/api/account/export`, { headers: { cookie } }));

/** The platform API's export, its body left unread. */
const apiExport = (key: string, ext: string) =>
  apiGet(
    new Request(`http://localhost/api/v1/learners/${ext}/export`, { headers: { authorization: `Bearer ${key}` } }),
    { params: Promise.resolve({ path: ["learners", ext, "export"] }) },
  );

/** Connections of the app's pool handed out now (a statement or transaction holds each). */
const inUse = () => getPool().totalCount - getPool().idleCount;

/** The app database's sessions left idle inside a transaction. */
async function idleInTransaction() {
  const rows = await getPool().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
  );
  return rows.rows[0]!.n;
}

describe("export bulkheads", () => {
  it("downloads nobody reads hold no connection, no transaction and no turn; a third of one person's is 429 with a Retry-After its deadlines keep", async () => {
    const me = await bigLearner();
    const first = await download(me.cookie);
    const second = await download(me.cookie);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Each has read its head and stopped at the reader: it waits holding nothing.
    await eventually(
      "both exports wait on their readers holding no connection and no turn",
      async () => inUse() === 0 && exportsNow().busy === 0,
    );
    expect(await idleInTransaction()).toBe(0);
    expect(exportsNow()).toMatchObject({ open: 2, busy: 0, waiting: 0 });

    const third = await download(me.cookie);
    expect(third.status).toBe(429);
    // By then the earlier of her two downloads has ended at the latest: it is cut at its deadline.
    const retryAfter = Number(third.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(setting("EXPORT_MAX_SECONDS"));
    expect((await third.json()).error.code).toBe("RATE_LIMITED");

    // A reader that goes away gives its place back; the one left is read to the end, whole.
    await first.body!.cancel();
    await eventually("the cancelled export gave its place back", async () => exportsNow().open === 1);
    const again = await download(me.cookie);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    const whole = JSON.parse(await second.text());
    expect(whole.materials).toHaveLength(13);
    expect(whole.materials.filter((m: { text: string }) => m.text.length === 200 * 1024)).toHaveLength(12);
    expect(whole.sessions.length).toBeGreaterThan(0);
    expect(whole.sessions[0]).not.toHaveProperty("id");
    await eventually("every download ended", async () => exportsNow().open === 0);
  });

  it("a stalled reader's download is ended after its rate window and gives its place back", async () => {
    process.env.EXPORT_RATE_WINDOW_MS = "300";
    try {
      const me = await bigLearner();
      const stalled = [await download(me.cookie), await download(me.cookie)];
      expect(stalled.map((r) => r.status)).toEqual([200, 200]);
      await eventually("the stalled downloads ended", async () => exportsNow().open === 0);
      expect(inUse()).toBe(0);
      // Nothing more comes: the stream ended in an error, not in a short valid document.
      await expect(new Response(stalled[0]!.body).text()).rejects.toThrow();
      const next = await download(me.cookie);
      expect(next.status).toBe(200);
      await next.body!.cancel();
    } finally {
      delete process.env.EXPORT_RATE_WINDOW_MS;
    }
  });

  it("three learners and a key holding every download they can leave another learner's, the console's and the platform's exports to complete", async () => {
    // One turn in the whole process: the attack could not be fairer to the attackers.
    process.env.EXPORTS_PER_INSTANCE = "1";
    const held: Response[] = [];
    try {
      const key = await serviceKey();
      const api = platform(key);
      const exts = Array.from({ length: 5 }, () => uid("ext"));
      for (const ext of exts) expect((await api.putLearner(ext, { name: "L" })).status).toBeLessThan(300);
      const attackers = [await bigLearner(), await bigLearner(), await bigLearner()];
      for (const a of attackers) held.push(await download(a.cookie), await download(a.cookie));
      for (const ext of exts.slice(0, 4)) held.push(await apiExport(key, ext));
      expect(held.map((r) => r.status)).toEqual(Array(10).fill(200));
      // Each is at its own cap: one more of theirs is refused, with a bound.
      const over = [await download(attackers[0]!.cookie), await apiExport(key, exts[4]!)];
      expect(over.map((r) => r.status)).toEqual([429, 429]);
      for (const r of over) expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      // The attack, held open by readers that never read: it holds no turn and no connection.
      await eventually(
        "the held downloads wait on their readers holding no turn",
        async () => inUse() === 0 && exportsNow().busy === 0,
      );
      expect(exportsNow()).toMatchObject({ open: 10, busy: 0, waiting: 0 });

      const ben = await bigLearner(2);
      const admin = await bigLearner(0, "admin");
      const otherKey = await serviceKey();
      const otherExt = uid("ext");
      expect((await platform(otherKey).putLearner(otherExt, { name: "P" })).status).toBeLessThan(300);

      const own = await download(ben.cookie);
      const consoleRes = await consoleExport(
        new Request(`${APP_URL}/api/admin/learners/${ben.user.id}/export`, { headers: { cookie: admin.cookie } }),
        { params: Promise.resolve({ userId: ben.user.id }) },
      );
      const apiRes = await apiExport(otherKey, otherExt);
      expect([own.status, consoleRes.status, apiRes.status]).toEqual([200, 200, 200]);
      const [mine, theirs, platformDoc] = await Promise.all([own.json(), consoleRes.json(), apiRes.json()]);
      expect(mine.materials).toHaveLength(3);
      expect(theirs.account.id).toBe(ben.user.id);
      expect(theirs.materials).toHaveLength(3);
      expect(platformDoc.account.externalId).toBe(otherExt);
      // The attack is still open while the others were served.
      expect(exportsNow().open).toBe(10);
    } finally {
      for (const r of held) await r.body?.cancel();
      delete process.env.EXPORTS_PER_INSTANCE;
    }
    await eventually("every download ended", async () => exportsNow().open === 0);
  });
});
