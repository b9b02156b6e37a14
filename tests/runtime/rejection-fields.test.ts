import { describe, expect, it } from "vitest";
import { rejectionFields } from "@/runtime/rejection";
import { failRequest, REJECTION_LIMITS } from "@/server/runtime-api/contract";

/** The reference Runtime's report of what its quality loop rejected: always accepted by the contract, never costing the failure. */
const base = { runtimeInstanceId: "rt-1", attemptNo: 1, errorCode: "INVALID_SCHEMA", errorMessage: "still invalid" };
const v = { path: "weakPoints.0.knowledgePointId", rule: "knowledge_point_unknown", message: "not in the snapshot" };
const accepted = (fields: object) => failRequest.safeParse({ ...base, ...fields }).success;

describe("rejectionFields", () => {
  it("sends a clean output as the value itself, with its violations", () => {
    const output = { weakPoints: [{ knowledgePointId: "kp_x" }] };
    const f = rejectionFields({ output, violations: [v] }, base, 262_144);
    expect(f).toEqual({ rejectedOutput: output, violations: [v] });
    expect(accepted(f)).toBe(true);
  });

  it("nothing rejected, nothing sent", () => {
    expect(rejectionFields(undefined, base, 262_144)).toEqual({});
  });

  it("an output with a NUL, or nested past the limit, goes as its JSON text (storable escapes), not truncated", () => {
    for (const output of [
      { note: "a\u0000b" },
      JSON.parse("[".repeat(REJECTION_LIMITS.outputDepth + 1) + "]".repeat(REJECTION_LIMITS.outputDepth + 1)),
    ]) {
      const f = rejectionFields({ output, violations: [v] }, base, 262_144);
      const text = JSON.stringify(output);
      expect(f).toMatchObject({
        rejectedOutput: text,
        rejectedOutputTruncated: true,
        rejectedOutputBytes: Buffer.byteLength(text),
      });
      expect(accepted(f)).toBe(true);
    }
  });

  it("an output over 64 KB goes as the start of its JSON text, cut on a character boundary, with its real size", () => {
    const output = { pad: "é".repeat(50_000) };
    const f = rejectionFields({ output, violations: [v] }, base, 262_144);
    const text = JSON.stringify(output);
    expect(f.rejectedOutputTruncated).toBe(true);
    expect(f.rejectedOutputBytes).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(f.rejectedOutput as string)).toBeLessThanOrEqual(REJECTION_LIMITS.outputBytes);
    expect(text.startsWith(f.rejectedOutput as string)).toBe(true);
    expect(accepted(f)).toBe(true);
  });

  it("clips long violations, drops ones the contract refuses, keeps at most 50", () => {
    const many = [
      { ...v, message: "m".repeat(900), path: "p".repeat(400) },
      { ...v, rule: "Not A Rule" },
      ...Array(60).fill(v),
    ];
    const f = rejectionFields({ output: {}, violations: many }, base, 262_144);
    expect(f.violations!.length).toBeLessThanOrEqual(REJECTION_LIMITS.violations);
    expect(f.violations![0]!.message).toHaveLength(REJECTION_LIMITS.message);
    expect(f.violations![0]!.path).toHaveLength(REJECTION_LIMITS.path);
    expect(f.violations!.some((x) => x.rule === "Not A Rule")).toBe(false);
    expect(accepted(f)).toBe(true);
  });

  it("leaves the rejection out when the fail body would pass the API's body limit", () => {
    expect(rejectionFields({ output: { pad: "x".repeat(5_000) }, violations: [v] }, base, 2_000)).toEqual({});
  });
});
