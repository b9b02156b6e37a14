import { describe, expect, it } from "vitest";
import { getDb, getPool } from "@/server/db";
import { GET as accountExport } from "@/app/api/account/export/route";
import { slotsHeld } from "@/server/bulkheads";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { eventually } from "../helpers/eventually";
import { createLearner, uid } from "../helpers/factories";
import { GET as apiGet } from "@/app/api/v1/[...path]/route";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * An export never holds a database connection while it waits on its reader, a stalled reader
 * ends its download, and the downloads at once are capped per learner, per key and per process.
 */
async function bigLearner(materials = 12) {
  const learner = await createLearner();
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
  it("downloads nobody reads hold no connection and no transaction; a third of one learner's is 429 with Retry-After", async () => {
    const me = await bigLearner();
    const first = await download(me.cookie);
    const second = await download(me.cookie);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Each has read its head and stopped at the reader: it waits holding nothing.
    await eventually("both exports wait on their readers holding no connection", async () => inUse() === 0);
    expect(await idleInTransaction()).toBe(0);

    const third = await download(me.cookie);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await third.json()).error.code).toBe("RATE_LIMITED");

    // Another learner is not held back by her.
    const other = await bigLearner(1);
    const theirs = await download(other.cookie);
    expect(theirs.status).toBe(200);
    const doc = JSON.parse(await theirs.text());
    expect(doc.materials).toHaveLength(2);

    // A reader that goes away gives its slot back; the one left is read to the end, whole.
    await first.body!.cancel();
    await eventually("the cancelled export gave its slot back", async () => slotsHeld("export") === 1);
    const again = await download(me.cookie);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    const whole = JSON.parse(await second.text());
    expect(whole.materials).toHaveLength(13);
    expect(whole.materials.filter((m: { text: string }) => m.text.length === 200 * 1024)).toHaveLength(12);
    expect(whole.sessions.length).toBeGreaterThan(0);
    expect(whole.sessions[0]).not.toHaveProperty("id");
  });

  it("a stalled reader's download is ended after the send timeout and gives its slot back", async () => {
    process.env.EXPORT_SEND_TIMEOUT_MS = "300";
    try {
      const me = await bigLearner();
      const stalled = [await download(me.cookie), await download(me.cookie)];
      expect(stalled.map((r) => r.status)).toEqual([200, 200]);
      await eventually("the stalled downloads ended", async () => slotsHeld("export") === 0);
      expect(inUse()).toBe(0);
      // Nothing more comes: the stream ended in an error, not in a short valid document.
      await expect(new Response(stalled[0]!.body).text()).rejects.toThrow();
      const next = await download(me.cookie);
      expect(next.status).toBe(200);
      await next.body!.cancel();
    } finally {
      delete process.env.EXPORT_SEND_TIMEOUT_MS;
    }
  });

  it("a service key streams at most EXPORTS_PER_KEY exports at once, and the instance at most EXPORTS_PER_INSTANCE", async () => {
    process.env.EXPORTS_PER_KEY = "2";
    process.env.EXPORTS_PER_INSTANCE = "3";
    try {
      const key = await serviceKey();
      const api = platform(key);
      const learners = [uid("ext"), uid("ext"), uid("ext")];
      for (const ext of learners) expect((await api.putLearner(ext, { name: "L" })).status).toBeLessThan(300);
      const open = [await apiExport(key, learners[0]!), await apiExport(key, learners[1]!)];
      expect(open.map((r) => r.status)).toEqual([200, 200]);
      const over = await apiExport(key, learners[2]!);
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await over.json()).error.code).toBe("RATE_LIMITED");

      // A learner's own download takes the instance's last slot; the next one anywhere is refused.
      const me = await bigLearner(1);
      const mine = await download(me.cookie);
      expect(mine.status).toBe(200);
      const other = await bigLearner(1);
      expect((await download(other.cookie)).status).toBe(429);
      await mine.body!.cancel();
      for (const r of open) await r.body!.cancel();
    } finally {
      delete process.env.EXPORTS_PER_KEY;
      delete process.env.EXPORTS_PER_INSTANCE;
    }
  });
});
