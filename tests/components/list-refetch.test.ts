import { describe, expect, it } from "vitest";
import { listRefetchMs } from "@/components/learner/use-job-feed";

const jobs = (...statuses: string[]) => statuses.map((status) => ({ status }) as { status: never });

describe("the learner list's re-reads", () => {
  it("with the stream open: every 5 s while a job is in flight, so a lost push or a crossed read cannot leave a row behind", () => {
    for (const s of ["pending", "locked", "running"]) expect(listRefetchMs(true, jobs("succeeded", s))).toBe(5000);
  });

  it("with the stream open and nothing in flight: no reads at all", () => {
    expect(listRefetchMs(true, jobs("succeeded", "failed", "cancelled"))).toBe(false);
    expect(listRefetchMs(true, [])).toBe(false);
    expect(listRefetchMs(true, undefined)).toBe(false);
  });

  it("without the stream: every 2 s while a job is in flight, every 10 s otherwise", () => {
    expect(listRefetchMs(false, jobs("running"))).toBe(2000);
    expect(listRefetchMs(false, jobs("succeeded"))).toBe(10_000);
    expect(listRefetchMs(false, undefined)).toBe(10_000);
  });
});
