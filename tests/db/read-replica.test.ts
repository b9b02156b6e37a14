import net from "node:net";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PrismaClient } from "@/server/generated/prisma/client";
import { getDb } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { readScope } from "@/server/read-scope";
import { closeReadReplica } from "@/server/read-replica";
import { GET as accountExport } from "@/app/api/account/export/route";
import { GET as adminExport } from "@/app/api/admin/learners/[userId]/export/route";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, uid } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { platform, serviceKey } from "../helpers/platform-api";

/**
 * An admin's export on the standby of DATABASE_READ_URL, without a cluster: the "standby" is a copy
 * of this file's database taken at one moment (CREATE DATABASE … TEMPLATE), so what is written on
 * the primary afterwards is missing from it, as from a standby whose replay is paused, and it is
 * opened read-only (default_transaction_read_only), so a write sent to it fails as on a standby.
 * tests/system/failover.test.ts does the same with a real Patroni standby.
 */
const primaryUrl = process.env.DATABASE_URL!;
const serverUrl = (database: string) => primaryUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}`);
const readOnly = (url: string) => `${url}?options=${encodeURIComponent("-c default_transaction_read_only=on")}`;
const copies: string[] = [];

/**
 * A copy of the database as it stands now. Nothing may be connected to it meanwhile: the pools'
 * idle connections are ended (they open new ones on their next use, as after a restart).
 */
async function standbyCopy(): Promise<string> {
  const name = uid("standby").toLowerCase();
  const source = new URL(primaryUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: serverUrl("postgres") });
  await admin.connect();
  try {
    await eventually("the database copied", async () => {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [source]);
      return admin.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`).then(
        () => true,
        (e: Error) => (/being accessed by other users/.test(e.message) ? null : Promise.reject(e)),
      );
    });
  } finally {
    await admin.end();
  }
  copies.push(name);
  return serverUrl(name);
}

afterEach(async () => {
  delete process.env.DATABASE_READ_URL;
  await closeReadReplica();
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: serverUrl("postgres") });
  await admin.connect();
  for (const name of copies) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

async function signedIn(role: "learner" | "admin") {
  const learner = await createLearner({ role });
  await setPassword(learner.user.id, "replica-pw-123");
  return { ...learner, cookie: await signedInCookie(learner.user.email, "replica-pw-123") };
}

const asAdmin = (cookie: string, userId: string) =>
  adminExport(new Request(`${APP_URL}/api/admin/learners/${userId}/export`, { headers: { cookie } }), {
    params: Promise.resolve({ userId }),
  });
type Exported = { jobs: { id: string }[]; sessions: unknown[] };
const jobIds = (data: Exported) => data.jobs.map((j) => j.id);
const exportAudits = (db: { adminAuditLog: PrismaClient["adminAuditLog"] }, actorId: string) =>
  db.adminAuditLog.count({ where: { action: "learner.export", actorId } });

describe("an admin's export on the standby (DATABASE_READ_URL)", () => {
  it("reads its pages from the standby and says so in X-Read-Source, with the audit row on the primary; a learner's own and the platform API's read the primary", async () => {
    const learner = await signedIn("learner");
    const admin = await signedIn("admin");
    const ext = uid("ext");
    await getDb().user.update({ where: { id: learner.user.id }, data: { externalId: ext } });
    const seen = await createTestJob(learner);
    process.env.DATABASE_READ_URL = readOnly(await standbyCopy());
    const hidden = await createTestJob(learner);

    const res = await asAdmin(admin.cookie, learner.user.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-read-source")).toBe("replica; lag=0.0");
    const data = (await res.json()) as Exported;
    expect(jobIds(data)).toContain(seen.id);
    expect(jobIds(data)).not.toContain(hidden.id);
    expect(await exportAudits(getDb(), admin.user.id)).toBe(1);

    // The data-rights answers read the primary: the job made after the copy is in them.
    const own = await accountExport(
      new Request(`${APP_URL}/api/account/export`, { headers: { cookie: learner.cookie } }),
    );
    expect(own.status).toBe(200);
    expect(own.headers.get("x-read-source")).toBeNull();
    expect(jobIds((await own.json()) as Exported)).toContain(hidden.id);
    const api = await platform(await serviceKey()).exportLearner(ext);
    expect(api.status).toBe(200);
    expect(jobIds(api.body as Exported)).toContain(hidden.id);

    // A standby nobody answers at, or none: the primary, and the header says why.
    process.env.DATABASE_READ_URL = "postgresql://postgres@127.0.0.1:9/ai_job_runtime";
    const down = await asAdmin(admin.cookie, learner.user.id);
    expect(down.headers.get("x-read-source")).toBe("primary; reason=unreachable");
    expect(jobIds((await down.json()) as Exported)).toContain(hidden.id);
    delete process.env.DATABASE_READ_URL;
    const none = await asAdmin(admin.cookie, learner.user.id);
    expect(none.headers.get("x-read-source")).toBe("primary; reason=not-configured");
    await none.body?.cancel();
    expect(await exportAudits(getDb(), admin.user.id)).toBe(3);
  });

  it("a standby lost in the middle of an export: the rest of its pages come from the primary, each row once", async () => {
    const learner = await signedIn("learner");
    const admin = await signedIn("admin");
    // Enough sessions that the first page fills the stream's buffer: the export then waits for
    // its reader after that page (backpressure), which holds it while the standby goes away.
    const agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
    await getDb().session.createMany({
      data: Array.from({ length: 1200 }, (_, i) => ({
        id: uid("sess"),
        token: uid("tok"),
        userId: learner.user.id,
        expiresAt: new Date(Date.UTC(2027, 0, 1)),
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        ipAddress: "10.1.2.3",
        userAgent: agent,
      })),
    });
    const copy = await standbyCopy();
    const proxy = await tcpProxy(new URL(copy).port);
    process.env.DATABASE_READ_URL = readOnly(copy.replace(/:\d+\//, `:${proxy.port}/`));
    const hidden = await createTestJob(learner);

    const res = await asAdmin(admin.cookie, learner.user.id);
    expect(res.headers.get("x-read-source")).toBe("replica; lag=0.0");
    await eventually("the export waits for its reader", async () => proxy.bytesToClient() > 64 * 1024 || null);
    await proxy.close();
    const data = (await res.json()) as Exported;
    expect(data.sessions).toHaveLength(1201);
    // The jobs were read after the switch: from the primary, with the job the copy lacks.
    expect(jobIds(data)).toContain(hidden.id);
  });

  it("an audit row written inside a read sent to the standby goes to the primary", async () => {
    const url = readOnly(await standbyCopy());
    const standby = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    try {
      await expect(standby.$executeRaw`SELECT 1 FROM "AdminAuditLog" FOR UPDATE`).rejects.toThrow(/read-only/);
      const actorId = uid("admin");
      await readScope.run(standby, () =>
        recordAudit({ actorId, action: "learner.export", scope: { userId: "someone" }, count: 1 }),
      );
      expect(await exportAudits(getDb(), actorId)).toBe(1);
      expect(await exportAudits(standby, actorId)).toBe(0);
    } finally {
      await standby.$disconnect();
    }
  });
});

/** A TCP proxy to the local PostgreSQL on `port`; close() cuts every connection and refuses new ones. */
async function tcpProxy(port: string) {
  const sockets = new Set<net.Socket>();
  let toClient = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    upstream.on("data", (chunk: Buffer) => (toClient += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    bytesToClient: () => toClient,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
