import type pg from "pg";
import { output } from "./payload";
import { cpuNow, cpuSince } from "./cpu";

/**
 * The floor of an event row per transition (docs/contract.md#states-and-transitions) for
 * `npm run bench:wal`: the least a queue can write per job while every transition writes an event
 * row and the output is stored, measured on the same server in the same run as ours and pg-boss 12.
 * Raw SQL on tables of their own (schema `floor`), nothing else: a narrow job row (uuid key, the
 * pending index alone, fillfactor 70), a claim of BATCH jobs (`FOR UPDATE SKIP LOCKED`, one
 * `pending → locked` event each), then their completion in one statement (one
 * `locked → succeeded` event each, the output stored). No usage, no token budget, no NOTIFY, no
 * console index. Each variant adds one thing to the one before it: variant n has steps 1..n.
 */
export const FLOOR_VARIANTS = [
  "no event rows, the output on the job row",
  "+ two event rows without any index",
  "+ the events' primary key, the output in a result row keyed by its job",
  "+ the events' (job, time) index (a job's history)",
] as const;
/** What a variant has, by its place in FLOOR_VARIANTS. */
const variant = (n: number) => ({ events: n >= 1, keyed: n >= 2, jobIndex: n >= 3 });
type Variant = ReturnType<typeof variant>;

export type FloorRound = { walRecords: number; walBytes: number; postgresCpuMs: number };

async function schema(db: pg.Client, v: Variant) {
  await db.query(`DROP SCHEMA IF EXISTS floor CASCADE`);
  await db.query(`CREATE SCHEMA floor`);
  await db.query(`CREATE TABLE floor.job (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), status text NOT NULL DEFAULT 'pending',
    attempt int NOT NULL DEFAULT 0, locked_by text, lock_until timestamptz, turn bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz, output jsonb) WITH (fillfactor = 70)`);
  await db.query(`CREATE INDEX ON floor.job (turn, created_at) WHERE status = 'pending'`);
  await db.query(`CREATE TABLE floor.event (id bigserial, job_id uuid NOT NULL, from_status text, to_status text NOT NULL,
    actor_type text NOT NULL, actor_id text, attempt int NOT NULL, error_code text, created_at timestamptz NOT NULL DEFAULT now())`);
  if (v.keyed) await db.query(`ALTER TABLE floor.event ADD PRIMARY KEY (id)`);
  if (v.jobIndex) await db.query(`CREATE INDEX ON floor.event (job_id, created_at)`);
  await db.query(`CREATE TABLE floor.result (job_id uuid PRIMARY KEY, attempt int NOT NULL, output jsonb NOT NULL,
    output_hash bytea NOT NULL, version text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
}

/** One turn: a claim of `batch`, then the completion of all it took; the number taken. */
async function turn(db: pg.Client, v: Variant, batch: number, out: string) {
  const events = (from: string, to: string) =>
    v.events
      ? `, e AS (INSERT INTO floor.event (job_id, from_status, to_status, actor_type, actor_id, attempt)
          SELECT id, '${from}', '${to}', 'runtime', 'rt', attempt FROM u)`
      : "";
  const claimed = await db.query<{ id: string }>(
    `WITH t AS (SELECT id FROM floor.job WHERE status = 'pending' ORDER BY turn, created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED),
      u AS (UPDATE floor.job j SET status = 'locked', attempt = j.attempt + 1, locked_by = 'rt', lock_until = now() + interval '5 minutes'
        FROM t WHERE j.id = t.id RETURNING j.id, j.attempt)${events("pending", "locked")}
      SELECT id FROM u`,
  );
  if (!claimed.rows.length) return 0;
  const result = v.keyed
    ? `, r AS (INSERT INTO floor.result (job_id, attempt, output, output_hash, version)
        SELECT id, attempt, $2::text::jsonb, sha256(convert_to($2::text, 'UTF8')), '1' FROM u)`
    : "";
  await db.query(
    `WITH t AS (SELECT id FROM floor.job WHERE id = ANY($1::uuid[]) AND locked_by = 'rt' AND status IN ('locked', 'running') FOR UPDATE),
      u AS (UPDATE floor.job j SET status = 'succeeded', locked_by = NULL, lock_until = NULL, finished_at = now()
        ${v.keyed ? "" : ", output = $2::text::jsonb"} FROM t WHERE j.id = t.id RETURNING j.id, j.attempt)${events("locked", "succeeded")}${result}
      SELECT count(*) FROM u`,
    [claimed.rows.map((r) => r.id), out],
  );
  return claimed.rows.length;
}

/** One round of every variant: `jobs` jobs each, WAL records and bytes from pg_walinspect, PostgreSQL's CPU from /proc. */
export async function floorRound(
  db: pg.Client,
  roles: { postmaster: number },
  jobs: number,
  batch: number,
): Promise<FloorRound[]> {
  const out = JSON.stringify(output);
  const lsn = async () => (await db.query(`SELECT pg_current_wal_insert_lsn()::text AS lsn`)).rows[0].lsn as string;
  const rounds: FloorRound[] = [];
  for (const v of FLOOR_VARIANTS.map((_, n) => variant(n))) {
    await schema(db, v);
    await db.query(`INSERT INTO floor.job (turn) SELECT g FROM generate_series(1, ${jobs}) g`);
    await db.query(`VACUUM ANALYZE floor.job`);
    await db.query(`CHECKPOINT`);
    const a = await lsn();
    const c0 = cpuNow(roles);
    for (let done = 0; done < jobs;) {
      const n = await turn(db, v, batch, out);
      if (!n) throw new Error(`floor queue empty after ${done} of ${jobs}`);
      done += n;
    }
    const cpu = cpuSince(c0, roles);
    const b = await lsn();
    const wal = (
      await db.query<{ records: string; bytes: string }>(
        `SELECT count(*) AS records, pg_wal_lsn_diff($2, $1) AS bytes FROM pg_get_wal_records_info($1, $2)`,
        [a, b],
      )
    ).rows[0]!;
    rounds.push({
      walRecords: +(Number(wal.records) / jobs).toFixed(1),
      walBytes: Math.round(Number(wal.bytes) / jobs),
      postgresCpuMs: +(cpu.postgres / jobs).toFixed(3),
    });
  }
  await db.query(`DROP SCHEMA floor CASCADE`);
  return rounds;
}
