import { describe, expect, it } from "vitest";
import { devRuntimeMode } from "../../scripts/lib/dev-runtime";

describe("DEV_RUNTIME (npm run dev)", () => {
  it("starts the reference Runtime unless told off, and refuses a value it does not know", () => {
    expect(devRuntimeMode(undefined)).toBe("on");
    expect(devRuntimeMode("on")).toBe("on");
    expect(devRuntimeMode(" OFF ")).toBe("off");
    for (const bad of ["", "0", "false", "no", "toString"])
      expect(() => devRuntimeMode(bad), bad).toThrow(/DEV_RUNTIME/);
  });
});
