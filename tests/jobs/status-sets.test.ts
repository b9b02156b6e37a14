import { describe, expect, it } from "vitest";
import {
  CANCELLABLE_STATUSES,
  FAILED_ATTEMPT_STATUSES,
  HELD_STATUSES,
  IN_FLIGHT_STATUSES,
  isHeld,
  isTerminal,
  JOB_STATUSES,
  OUTCOME_STATUSES,
  RERUNNABLE_STATUSES,
  SHOWN_STATUSES,
  TERMINAL_STATUSES,
} from "@/server/jobs/constants";
import { statusList } from "@/server/jobs/status-sql";
import type { JobStatus } from "@/server/generated/prisma/enums";

/** The status sets every query and component builds on (server/jobs/constants.ts), against docs/contract.md#states-and-transitions. */
describe("status sets", () => {
  it("terminal and in-flight split the states with nothing left over and nothing shared", () => {
    expect([...TERMINAL_STATUSES, ...IN_FLIGHT_STATUSES].sort()).toEqual([...JOB_STATUSES].sort());
    expect(TERMINAL_STATUSES.filter((s) => IN_FLIGHT_STATUSES.includes(s))).toEqual([]);
  });

  it("a held lease is locked or running, never expired (the end of an attempt)", () => {
    expect([...HELD_STATUSES].sort()).toEqual(["locked", "running"]);
    expect(isHeld("expired")).toBe(false);
    expect(isHeld("running")).toBe(true);
  });

  it("cancel applies to pending and held jobs; re-run to failed and cancelled; rates count succeeded and failed", () => {
    expect([...CANCELLABLE_STATUSES].sort()).toEqual(["locked", "pending", "running"]);
    expect([...RERUNNABLE_STATUSES].sort()).toEqual(["cancelled", "failed"]);
    expect(RERUNNABLE_STATUSES.every((s) => isTerminal(s))).toBe(true);
    expect([...OUTCOME_STATUSES].sort()).toEqual(["failed", "succeeded"]);
    expect([...FAILED_ATTEMPT_STATUSES].sort()).toEqual(["failed", "pending"]);
    expect(SHOWN_STATUSES).not.toContain("expired");
    expect(isTerminal("cancelled")).toBe(true);
    expect(isTerminal("toString")).toBe(false);
  });

  it("statusList writes literals for the planner and refuses anything that is not a status", () => {
    expect(statusList(HELD_STATUSES).strings.join("")).toBe("'locked', 'running'");
    expect(statusList(HELD_STATUSES).values).toEqual([]);
    expect(() => statusList([])).toThrow();
    expect(() => statusList(["pending'); DROP TABLE x; --" as JobStatus])).toThrow();
  });
});
