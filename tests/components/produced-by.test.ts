import { describe, expect, it } from "vitest";
import { producedBy } from "@/components/admin/produced-by";

/** The console's job page names what produced the result, not the model the job asked for. */
describe("producedBy", () => {
  it("names the offline analyzer for a result the local provider made, the model otherwise", () => {
    expect(producedBy({ modelProvider: "local", modelName: "offline-analyzer" })).toBe(
      "Offline analyzer (no model called)",
    );
    expect(producedBy({ modelProvider: "deepseek", modelName: "deepseek-chat" })).toBe(
      "Model: deepseek / deepseek-chat",
    );
    expect(producedBy(null)).toBe("— (no result yet)");
  });
});
