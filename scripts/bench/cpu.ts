import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * CPU time by role, read from /proc (utime + stime, plus cutime + cstime: the time of children
 * that have exited and been waited for, so short-lived backends and finished Runtime processes
 * are not lost). Clock ticks are 1/100 s on Linux.
 *
 * - postgres: the postmaster (from postmaster.pid) and every process whose parent it is;
 * - app: every process in the app server's process group;
 * - runtimes: reported by each bench Runtime itself (process.cpuUsage from "go" on), since the
 *   exited-children time would also count their start-up (tsx, imports), which is not per job.
 */
const TICK_MS = 10;

type Stat = { pid: number; ppid: number; pgrp: number; own: number; children: number };

function readStat(pid: number | "self"): Stat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(f[i - 3]);
    return {
      pid: Number(text.slice(0, text.indexOf(" "))),
      ppid: n(4),
      pgrp: n(5),
      own: (n(14) + n(15)) * TICK_MS,
      children: (n(16) + n(17)) * TICK_MS,
    };
  } catch {
    return null;
  }
}

function allStats(): Stat[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readStat(Number(d)))
    .filter((s): s is Stat => !!s);
}

export type CpuRoles = { postgres: number; app: number; runtimes: number; bench: number };
// runtimes is filled in by the caller from the workers' own reports; cpuNow leaves it 0.

export function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** Milliseconds of CPU used so far by each role. */
export function cpuNow(roles: { postmaster: number; appGroup?: number }): CpuRoles {
  const stats = allStats();
  const sum = (list: Stat[]) => list.reduce((t, s) => t + s.own + s.children, 0);
  const self = readStat("self")!;
  return {
    postgres: sum(stats.filter((s) => s.pid === roles.postmaster || s.ppid === roles.postmaster)),
    app: roles.appGroup ? sum(stats.filter((s) => s.pgrp === roles.appGroup)) : 0,
    runtimes: 0,
    bench: self.own,
  };
}

export function cpuSince(start: CpuRoles, roles: { postmaster: number; appGroup?: number }): CpuRoles {
  const end = cpuNow(roles);
  return {
    postgres: end.postgres - start.postgres,
    app: end.app - start.app,
    runtimes: end.runtimes - start.runtimes,
    bench: end.bench - start.bench,
  };
}

/** CPU per job in ms, by role, rounded to 0.001 ms (pg-boss spends about 0.06 ms of PostgreSQL a job). */
export function perJob(cpu: CpuRoles, jobs: number) {
  const r = (ms: number) => Math.round((ms / jobs) * 1000) / 1000;
  return { postgresMs: r(cpu.postgres), appMs: r(cpu.app), runtimesMs: r(cpu.runtimes), benchMs: r(cpu.bench) };
}

export const loadAverage = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** Milliseconds of CPU one process has used so far (HAProxy, PgBouncer: single processes), with its waited-for children. */
export function processCpuMs(pid: number | undefined): number {
  const s = pid ? readStat(pid) : null;
  return s ? s.own + s.children : 0;
}
