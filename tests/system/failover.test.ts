import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import pg from "pg";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { startPatroniCluster, type PatroniCluster } from "../../scripts/lib/patroni-cluster";
import { TERMINAL_STATUSES } from "@/server/jobs/constants";
import { closeDb, getDb } from "@/server/db";
import { closeReadReplica, onReadReplica, readSource } from "@/server/read-replica";
import { exploreJobs } from "@/server/admin/explorer";
import { getAdminJobDetail } from "@/server/admin/job-detail";
import { exportLearnerData } from "@/server/learners/export";
import { GET as adminExportRoute } from "@/app/api/admin/learners/[userId]/export/route";
import { createLearner, createTestJob, runtimeKey, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { spawnRuntimes, type RuntimeProcess } from "./runtime-process";
import { createJobs, expectSucceededOnce, outcomeViolations } from "./jobs";
import { createServiceKey, SCOPES } from "@/server/platform/service-keys";
import { openLearnerPage, pushes } from "./learner-page";

/**
 * Losing the database primary (docs/operations.md, "High availability"): a Patroni cluster of three
 * nodes in strict synchronous mode on a three-member etcd, behind HAProxy (deploy/patroni.yml,
 * deploy/haproxy-postgres.cfg), the app and its Runtimes on HAProxy's primary listener, a
 * learner's page open. Four faults one after another on the same cluster, each while a wave of
 * jobs runs, the platform API starts jobs every 300 ms and a probe writes through the primary
 * listener every 100 ms: the primary's postmaster SIGKILLed; the primary's whole node hung
 * (Patroni and PostgreSQL SIGSTOPped) and resumed once another node leads and has acknowledged
 * writes; the primary's PostgreSQL alone hung and resumed the same way; a planned `patronictl
 * switchover`. No operator command is typed. A ledger keeps every 2xx a client or a Runtime
 * received and is reconciled after each fault: every acknowledged probe write, job creation,
 * claim and result is stored, the stored result is the one the Runtime was told, nothing is
 * doubled (the chaos verifier); live updates come back; the time from the fault to the first
 * claim and to readiness green is printed (docs/operations.md).
 */
process.env.BETTER_AUTH_SECRET ??= crypto.randomBytes(32).toString("base64url");
process.env.JOB_CREATE_TIMEOUT_MS = "60000";
const ROOT = path.resolve(import.meta.dirname, "../..");
const DB = "ai_job_runtime";
const t0 = Date.now();
const step = (what: string) => console.log(`[failover] +${Math.round((Date.now() - t0) / 1000)} s: ${what}`);

let cluster: PatroniCluster;
let app: AppServer;
let browser: Browser;
const runtimes: RuntimeProcess[] = [];

beforeAll(async () => {
  cluster = await startPatroniCluster({ log: step });
  // On a loaded machine a slow health check can make HAProxy cut a session once: retried.
  await eventually("the database made", async () => {
    const admin = new pg.Client({ connectionString: cluster.primaryUrl("postgres") });
    admin.on("error", () => {});
    try {
      await admin.connect();
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DB]);
      if (!rowCount) await admin.query(`CREATE DATABASE ${DB}`);
      // The probe's own database: one table of numbered writes.
      const probe = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'probe'");
      if (!probe.rowCount) await admin.query("CREATE DATABASE probe");
      return true;
    } catch {
      return null;
    } finally {
      await admin.end().catch(() => {});
    }
  });
  // This process (factories, the verifier) and the app both go through HAProxy's primary listener.
  await closeDb();
  process.env.DATABASE_URL = cluster.primaryUrl(DB);
  const migrate = () =>
    spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts", "deploy"], {
      cwd: ROOT,
      env: { ...process.env },
      encoding: "utf8",
    });
  let migrated = migrate();
  if (migrated.status !== 0) migrated = migrate();
  if (migrated.status !== 0) throw new Error(`migrations failed: ${migrated.stderr}`);
  app = await startAppServer({
    databaseUrl: cluster.primaryUrl(DB),
    env: {
      BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET!,
      SWEEP_INTERVAL_MS: "2000",
      // A claim whose answer was lost with the primary comes back to the queue in seconds.
      JOB_LEASE_SECONDS: "10",
      DB_CONNECT_TIMEOUT_MS: "3000",
      // Creations keep coming through every fault: no quota stops them.
      QUOTA_JOBS_PER_HOUR: "100000",
      QUOTA_JOBS_PER_DAY: "100000",
      QUOTA_JOB_TYPE_PER_HOUR: "none",
    },
  });
  await eventually("the probe's table made", async () => {
    const c = new pg.Client({ connectionString: cluster.primaryUrl("probe") });
    c.on("error", () => {});
    try {
      await c.connect();
      await c.query("CREATE TABLE IF NOT EXISTS probe (n int PRIMARY KEY)");
      return true;
    } catch {
      return null;
    } finally {
      await c.end().catch(() => {});
    }
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  step("cluster, migrations and the app up");
});

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await browser?.close();
  await app?.stop();
  await closeDb();
  await cluster?.stop();
});

const learnerPage = (learner: Learner) => openLearnerPage(browser, app.url, learner, "failover-pw-123");
/** An admin's download of a learner's data (the console's route): where it was read, and its jobs. */
async function adminExport(cookie: string, userId: string) {
  const res = await adminExportRoute(
    new Request(`${APP_URL}/api/admin/learners/${userId}/export`, { headers: { cookie } }),
    { params: Promise.resolve({ userId }) },
  );
  expect(res.status).toBe(200);
  const data = (await res.json()) as { jobs: { id: string }[] };
  return { source: res.headers.get("x-read-source"), jobs: data.jobs.map((j) => j.id) };
}
const exportsBy = (adminId: string) =>
  getDb().adminAuditLog.count({ where: { action: "learner.export", actorId: adminId } });

/** Readiness polled every 200 ms from before a fault until stopped: [ms since the fault, status]. */
function watchReadiness(from: number) {
  const seen: [number, number][] = [];
  let on = true;
  const done = (async () => {
    while (on) {
      const status = await fetch(`${app.url}/api/health/ready`, { signal: AbortSignal.timeout(5000) }).then(
        (r) => r.status,
        () => 0,
      );
      seen.push([Date.now() - from, status]);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    seen,
    stop: async () => {
      on = false;
      await done;
    },
  };
}

/**
 * The claims' outage around a fault: the first pause of more than 1.5 s between two claims (lock
 * events, by the database's clock) that ends after the fault, and when the claim ending it came.
 * Four slots and pending work keep claims well under a second apart otherwise; a switchover's
 * pause starts a moment after the command, once the old primary stops taking writes.
 */
async function claimOutage(ids: string[], faultAt: number) {
  const events = await getDb().jobEvent.findMany({
    where: { jobId: { in: ids }, toStatus: "locked", createdAt: { gt: new Date(faultAt - 10_000) } },
    select: { createdAt: true },
    orderBy: { createdAt: "asc" },
  });
  const times = events.map((e) => e.createdAt.getTime());
  for (let i = 1; i < times.length; i++) {
    const gap = times[i]! - times[i - 1]!;
    if (times[i]! > faultAt && gap > 1500) return { gapMs: gap, firstClaimMs: times[i]! - faultAt };
  }
  return { gapMs: 0, firstClaimMs: NaN };
}

/**
 * A probe writing through HAProxy's primary listener every 100 ms, each write on a connection of
 * its own (given up after 5 s): the writes acknowledged, each by the port of the node that took it.
 */
let probeNumber = 0;
function startProbe(url: string) {
  const acked = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  let on = true;
  const write = async (i: number) => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    c.on("error", () => {});
    const giveUp = setTimeout(
      () => (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
      5000,
    );
    try {
      await c.connect();
      const { rows } = await c.query<{ port: number }>(
        "INSERT INTO probe (n) VALUES ($1) RETURNING inet_server_port() AS port",
        [i],
      );
      acked.set(i, rows[0]!.port);
    } catch {
      // not acknowledged: nothing to find afterwards
    } finally {
      clearTimeout(giveUp);
      await c.end().catch(() => {});
    }
  };
  const loop = (async () => {
    while (on) {
      const p = write(probeNumber++).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    acked,
    /** Stops writing and waits for every write in flight to be answered or given up. */
    stop: async () => {
      on = false;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}

/**
 * The platform API starting an analysis every 300 ms for learners of its own, each call with an
 * idempotency key and repeated with the same key after a 503 until it gets a 2xx: the ledger is
 * the key and the job id of every 2xx, and every answer's status counted.
 */
let creationNumber = 0;
function startCreator(service: string, externalIds: string[]) {
  const ledger: { key: string; jobId: string; created: boolean }[] = [];
  const statuses = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  let on = true;
  const create = async (key: string, ext: string) => {
    for (let tries = 0; tries < 60; tries++) {
      const res = await fetch(`${app.url}/api/v1/learners/${ext}/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${service}`, "content-type": "application/json" },
        body: JSON.stringify({ jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: key }),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      const status = res?.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (res && status >= 200 && status < 300) {
        const answer = (await res.json()) as { created: boolean; job: { id: string } };
        ledger.push({ key, jobId: answer.job.id, created: answer.created });
        return;
      }
      await res?.body?.cancel();
      // A 503 (with Retry-After) or no answer: the same key again, sooner than Retry-After in a test.
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`creation ${key} never answered 2xx`);
  };
  const loop = (async () => {
    while (on) {
      const i = creationNumber++;
      const p = create(`failover-${i}`, externalIds[i % externalIds.length]!).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  return {
    ledger,
    statuses,
    stop: async () => {
      on = false;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}

/** The probe's stored writes, read through the primary listener. */
async function probeRows() {
  const c = new pg.Client({ connectionString: cluster.primaryUrl("probe") });
  c.on("error", () => {});
  await c.connect();
  try {
    return (await c.query<{ n: number }>("SELECT n FROM probe")).rows;
  } finally {
    await c.end();
  }
}

/** SIGSTOP or SIGCONT to a node's processes: its Patroni (whole node) and its PostgreSQL, the postmaster first. */
function signalNode(pids: number[], sig: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // a backend may end between the listing and its signal
    }
  }
}

const unfinished = (ids: string[]) =>
  getDb().aiRuntimeJob.count({ where: { id: { in: ids }, status: { notIn: [...TERMINAL_STATUSES] } } });

describe("[SYSTEM] losing the database primary (Patroni, synchronous standby, HAProxy)", () => {
  it("serves the console's heavy reads and an admin's export from the standby (DATABASE_READ_URL) with its lag, and from the primary when it is behind or down", async () => {
    await cluster.healthy();
    process.env.DATABASE_READ_URL = cluster.replicaUrl(DB);
    process.env.DB_READ_MAX_LAG_SECONDS = "30";
    const learner = await createLearner();
    const admin = await createLearner({ role: "admin" });
    await setPassword(admin.user.id, "failover-pw-123");
    const adminCookie = await signedInCookie(admin.user.email, "failover-pw-123");
    const explore = () =>
      onReadReplica(() => exploreJobs({ filter: {}, sort: "createdAt_desc", limit: 50 })).then((r) =>
        r.items.map((i) => i.id),
      );
    const seen = await createTestJob(learner);
    await eventually("the standby has replayed the first job", async () => (await explore()).includes(seen.id) || null);
    expect(await readSource()).toMatchObject({ source: "replica" });

    // Replay paused on the standby (the state is held by it, not by a timer; Patroni in maintenance
    // mode, or it would resume replay): a job committed now is on the primary and the synchronous
    // standby's disk, but not in what the console reads.
    cluster.patronictl(["pause", "--wait"]);
    // Replay paused on every standby: the replica listener may send a read to either.
    const { leader } = await cluster.healthy();
    const standbys = cluster.nodes
      .filter((n) => n.name !== leader)
      .map((n) => new pg.Client({ connectionString: cluster.nodeUrl(n, DB) }));
    for (const standby of standbys) {
      standby.on("error", () => {});
      await standby.connect();
    }
    try {
      for (const standby of standbys) await standby.query("SELECT pg_wal_replay_pause()");
      const hidden = await createTestJob(learner);
      expect(await explore()).not.toContain(hidden.id);
      // Not there yet: the job's page asks the primary instead of answering "not found".
      expect((await onReadReplica(() => getAdminJobDetail(hidden.id))).job.id).toBe(hidden.id);
      // The lag is shown, and grows while replay waits.
      const lagging = await eventually("the lag shown", async () => {
        const where = await readSource();
        return (where.lagSeconds ?? 0) > 0 ? where : null;
      });
      expect(lagging.source).toBe("replica");
      // An admin's export of the learner: its pages from the standby, without the job, and the
      // lag in its header; its audit row written on the primary. Her own export reads the primary.
      const onStandby = await adminExport(adminCookie, learner.user.id);
      expect(onStandby.source).toMatch(/^replica; lag=\d+\.\d$/);
      expect(Number(onStandby.source!.split("=")[1])).toBeGreaterThan(0);
      expect(onStandby.jobs).toContain(seen.id);
      expect(onStandby.jobs).not.toContain(hidden.id);
      expect(await exportsBy(admin.user.id)).toBe(1);
      const own = await exportLearnerData(learner.user.id, { type: "learner", id: learner.user.id });
      expect((own.jobs as { id: string }[]).map((j) => j.id)).toContain(hidden.id);

      // Too far behind: the primary answers, with the job.
      process.env.DB_READ_MAX_LAG_SECONDS = "0";
      expect(await readSource()).toMatchObject({ source: "primary", reason: "behind" });
      expect(await explore()).toContain(hidden.id);
      expect((await onReadReplica(() => getAdminJobDetail(hidden.id))).job.id).toBe(hidden.id);
      const onPrimary = await adminExport(adminCookie, learner.user.id);
      expect(onPrimary.source).toMatch(/^primary; reason=behind; lag=\d+\.\d$/);
      expect(onPrimary.jobs).toContain(hidden.id);
      expect(await exportsBy(admin.user.id)).toBe(2);
      process.env.DB_READ_MAX_LAG_SECONDS = "30";
    } finally {
      for (const standby of standbys) {
        await standby.query("SELECT pg_wal_replay_resume()");
        await standby.end();
      }
      cluster.patronictl(["resume", "--wait"]);
    }

    // A standby nobody answers at: the primary serves the reads.
    process.env.DATABASE_READ_URL = "postgresql://postgres@127.0.0.1:9/ai_job_runtime";
    expect(await readSource()).toMatchObject({ source: "primary", reason: "unreachable" });
    expect(await explore()).toContain(seen.id);
    expect((await adminExport(adminCookie, learner.user.id)).source).toBe("primary; reason=unreachable");
    delete process.env.DATABASE_READ_URL;
    await closeReadReplica();
  });

  it("loses no acknowledged write, job, claim or result and doubles none through a killed primary, a hung-and-resumed node, a hung-and-resumed PostgreSQL and a switchover", async () => {
    const learner = await createLearner();
    const page = await learnerPage(learner);
    const key = await runtimeKey();
    runtimes.push(...spawnRuntimes(2, { apiUrl: app.url, apiKey: key, delayMs: 700, concurrency: 2 }));
    const pause = () => runtimes.forEach((r) => void r.kill("SIGSTOP"));
    const resume = () => runtimes.forEach((r) => void r.kill("SIGCONT"));
    const ids: string[] = [];
    const figures: string[] = [];
    // The platform's learners, made before any fault.
    const service = (await createServiceKey(`failover-${Date.now()}`, SCOPES, "test")).key;
    const externalIds = [0, 1, 2].map((i) => `failover-learner-${Date.now()}-${i}`);
    for (const ext of externalIds) {
      const made = await fetch(`${app.url}/api/v1/learners/${ext}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${service}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Failover", aiConsent: true }),
      });
      expect(made.status).toBe(201);
    }
    let writer = startProbe(cluster.primaryUrl("probe"));
    await writer.stop();

    /**
     * A node hung while it leads, held until another node leads, is in Patroni's sync key and has
     * acknowledged probe writes (the new primary's work the resumed node must not undo), then
     * resumed: no reboot, no command. Patroni on etcd's v2 API finds its key taken and demotes it.
     */
    const hangAndResume = async (leader: string, wholeNode: boolean) => {
      const node = cluster.nodes.find((n) => n.name === leader)!;
      const pids = [...(wholeNode ? [cluster.patroniPid(node)] : []), ...cluster.postgresPids(node)];
      signalNode(pids, "SIGSTOP");
      // Processes the postmaster started meanwhile (none once it is stopped): stopped too.
      signalNode(cluster.postgresPids(node), "SIGSTOP");
      const successor = await eventually(
        "a new leader, in the sync key, while the old one hangs",
        async () => {
          const now = (await cluster.state()).leader;
          return (now && now !== leader && (await cluster.syncKey())?.leader === now && now) || null;
        },
        120_000,
      );
      const port = cluster.nodes.find((n) => n.name === successor)!.pgPort;
      const before = [...writer.acked.values()].filter((p) => p === port).length;
      await eventually(
        "ten probe writes acknowledged by the new primary",
        async () => [...writer.acked.values()].filter((p) => p === port).length >= before + 10 || null,
        120_000,
      );
      signalNode(cluster.postgresPids(node), "SIGCONT");
      signalNode(pids, "SIGCONT");
    };

    const faults: {
      name: string;
      run: (leader: string, sync: string) => Promise<void>;
      red: boolean;
      /** The leader stays (no failover): etcd's quorum lost under failsafe_mode. */
      stays?: boolean;
    }[] = [
      {
        name: "SIGKILL of the primary's postmaster",
        red: true,
        run: async (leader) => {
          const node = cluster.nodes.find((n) => n.name === leader)!;
          process.kill(cluster.postmasterPid(node)!, "SIGKILL");
        },
      },
      {
        name: "the primary's whole node hung (Patroni and PostgreSQL SIGSTOPped) and resumed",
        red: true,
        run: async (leader) => hangAndResume(leader, true),
      },
      {
        name: "the primary's PostgreSQL alone hung (SIGSTOPped) and resumed",
        red: true,
        run: async (leader) => hangAndResume(leader, false),
      },
      {
        name: "etcd's quorum lost (two of three members SIGKILLed) and back",
        red: false,
        stays: true,
        run: async (leader) => {
          const node = cluster.nodes.find((n) => n.name === leader)!;
          await cluster.stopEtcd("etcd2");
          await cluster.stopEtcd("etcd3");
          // Held until the leader runs on failsafe_mode (every member answered its POST /failsafe)
          // and has acknowledged twenty probe writes since, then the two members come back.
          await eventually(
            "the leader on failsafe_mode",
            async () => {
              const r = await fetch(`http://127.0.0.1:${node.restPort}/patroni`, { signal: AbortSignal.timeout(2000) });
              return (
                ((await r.json()) as { failsafe_mode_is_active?: boolean }).failsafe_mode_is_active === true || null
              );
            },
            120_000,
          );
          const before = writer.acked.size;
          await eventually(
            "twenty probe writes acknowledged without etcd",
            async () => writer.acked.size >= before + 20 || null,
            120_000,
          );
          cluster.startEtcd("etcd2");
          cluster.startEtcd("etcd3");
        },
      },
      {
        name: "planned switchover (patronictl switchover)",
        red: false,
        run: async (leader, sync) => {
          cluster.patronictl(["switchover", "--leader", leader, "--candidate", sync, "--force"]);
        },
      },
    ];

    for (const fault of faults) {
      const { leader, sync } = await cluster.healthy();
      writer = startProbe(cluster.primaryUrl("probe"));
      const creator = startCreator(service, externalIds);
      pause();
      const wave = await createJobs([learner], 16);
      ids.push(...wave);
      resume();
      await eventually(
        "a job of the wave in flight",
        async () =>
          (await getDb().aiRuntimeJob.count({ where: { id: { in: wave }, status: { in: ["locked", "running"] } } })) >
            0 || null,
      );
      const faultAt = Date.now();
      const readiness = watchReadiness(faultAt);
      step(`${fault.name}: leader ${leader}, synchronous standby ${sync}`);
      await fault.run(leader, sync);
      const after = await cluster.healthy();
      expect(after.leader).toBe(fault.stays ? leader : sync);
      step(`${fault.name}: ${after.leader} leads, ${after.sync} is its synchronous standby again`);
      await eventually("readiness green", async () => readiness.seen.at(-1)?.[1] === 200 || null, 120_000);
      await readiness.stop();
      const red = readiness.seen.filter(([, s]) => s !== 200);
      if (fault.red) expect(red.length).toBeGreaterThan(0);
      const lastRed = red.at(-1)?.[0] ?? 0;
      const green = readiness.seen.find(([t, s]) => t > lastRed && s === 200)?.[0] ?? 0;

      // The ledger of this fault: every 2xx answered is stored.
      await writer.stop();
      await creator.stop();
      const stored = new Set((await probeRows()).map((r) => r.n));
      const lostWrites = [...writer.acked.keys()].filter((n) => !stored.has(n));
      expect(lostWrites, "acknowledged probe writes missing").toEqual([]);
      const made = await getDb().aiRuntimeJob.findMany({
        where: { id: { in: creator.ledger.map((c) => c.jobId) } },
        select: { id: true, idempotencyKey: true },
      });
      const byId = new Map(made.map((j) => [j.id, j.idempotencyKey]));
      // Every job answered is stored; one made by this call carries its key (one answering an
      // earlier call — a repeat after a lost answer — may carry that call's).
      expect(
        creator.ledger.filter((c) => !byId.has(c.jobId) || (c.created && byId.get(c.jobId) !== c.key)),
        "acknowledged creations missing",
      ).toEqual([]);
      // Nothing doubled: one job per key, however often a key was repeated.
      const keyed = await getDb().aiRuntimeJob.groupBy({
        by: ["idempotencyKey"],
        where: { idempotencyKey: { in: creator.ledger.map((c) => c.key) } },
        _count: true,
      });
      expect(keyed.filter((k) => k._count > 1)).toEqual([]);
      expect(creator.statuses.get(500) ?? 0).toBe(0);
      ids.push(...new Set(creator.ledger.map((c) => c.jobId)));
      const writes = `${writer.acked.size} probe writes and ${creator.ledger.length} creations acknowledged, all stored (answers: ${[...creator.statuses].map(([k, v]) => `${k}×${v}`).join(", ")})`;
      step(`${fault.name}: ${writes}`);

      await eventually("every job finished", async () => (await unfinished(ids)) === 0 || null, 150_000);
      const outage = await claimOutage(wave, faultAt);
      const line = `${fault.name}: ${writes}; ${outage.gapMs ? `first claim ${(outage.firstClaimMs / 1000).toFixed(1)} s after the fault (claims paused ${(outage.gapMs / 1000).toFixed(1)} s)` : "claims never paused over 1.5 s"}; readiness ${red.length ? `red from ${(red[0]![0] / 1000).toFixed(1)} s, ` : "never red, "}green at ${(green / 1000).toFixed(1)} s`;
      figures.push(line);
      step(line);

      // Nothing committed lost, nothing doubled: every job so far is there and ended once.
      expect(await outcomeViolations(cluster.primaryUrl(DB), ids)).toEqual([]);
      expect((await expectSucceededOnce(ids)).problems).toEqual([]);
      // Every claim a Runtime was handed is recorded, and every result it was told was accepted
      // is the stored one: that attempt's, with the result id it was given.
      const told = runtimes.flatMap((r) => r.events);
      const claims = told.filter((e) => e.event === "job.started");
      const locked = await getDb().jobEvent.findMany({
        where: { jobId: { in: [...new Set(claims.map((c) => c.jobId!))] }, toStatus: "locked" },
        select: { jobId: true, attemptNo: true },
      });
      const lockedKeys = new Set(locked.map((l) => `${l.jobId}:${l.attemptNo}`));
      expect(claims.filter((c) => !lockedKeys.has(`${c.jobId}:${c.attemptNo}`))).toEqual([]);
      const accepted = told.filter((e) => e.event === "job.succeeded");
      const results = await getDb().aiRuntimeResult.findMany({
        where: { jobId: { in: accepted.map((a) => a.jobId!) } },
        select: { jobId: true, id: true, attemptNo: true },
      });
      const resultOf = new Map(results.map((r) => [r.jobId, `${r.id}:${r.attemptNo}`]));
      expect(accepted.filter((a) => resultOf.get(a.jobId!) !== `${a.resultId}:${a.attemptNo}`)).toEqual([]);

      // Live updates are back: a job made now reaches the open page by push.
      const probe = await createTestJob(learner);
      ids.push(probe.id);
      await eventually(
        "the page hears the probe's success by push",
        async () => (await pushes(page)).some((p) => p.id === probe.id && p.status === "succeeded") || null,
        60_000,
      );
      await page.getByTestId("live-indicator").getByText("Live updates on").waitFor({ timeout: 30_000 });
    }

    // Through all three, the database's failures reached the Runtimes as 503s, never as 500s.
    expect(app.output()).not.toMatch(/\[runtime-api\] unexpected error/);
    expect(runtimes.filter((r) => !r.alive())).toEqual([]);
    console.log(`[failover] figures:\n${figures.join("\n")}`);
  });
});
