import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/** The ESLint rule that keeps server/jobs from importing upward, run on probe sources (nothing is written). */
describe("the domain's ESLint rule", () => {
  it(
    "refuses upward imports from server/jobs and names the new homes; allows the ground floor",
    { timeout: 120_000 },
    async () => {
      const eslint = new ESLint();
      const lint = async (filePath: string, code: string) =>
        (await eslint.lintText(code, { filePath }))[0]!.messages.filter((m) => m.ruleId === "no-restricted-imports");
      const upward = await lint(
        "server/jobs/probe.ts",
        [
          'import { recordAudit } from "../admin/audit";',
          'import { getAlerts } from "../observability/alerts";',
          'import { CHANNEL } from "../events/job-feed";',
          'import { pollRequest } from "../runtime-api/contract";',
          'import { runPipeline } from "../pipeline/run-pipeline";',
          "export const x = [recordAudit, getAlerts, CHANNEL, pollRequest, runPipeline];",
        ].join("\n"),
      );
      expect(new Set(upward.map((m) => m.line))).toEqual(new Set([1, 2, 3, 4, 5]));
      expect(upward.some((m) => m.message.includes("server/audit.ts"))).toBe(true);
      expect(upward.some((m) => m.message.includes("server/jobs/job-change.ts"))).toBe(true);

      const ground = await lint(
        "server/jobs/probe.ts",
        [
          'import { recordAudit } from "../audit";',
          'import { metrics } from "../observability/metrics";',
          'import { jobTypeSchema } from "../job-types";',
          'import { getDb } from "../db";',
          "export const x = [recordAudit, metrics, jobTypeSchema, getDb];",
        ].join("\n"),
      );
      expect(ground).toEqual([]);

      // Elsewhere in server/, recordAudit from the console's folder is refused with its new home.
      const learning = await lint(
        "server/learning/probe.ts",
        'import { recordAudit } from "../admin/audit";\nexport const x = recordAudit;',
      );
      expect(learning.map((m) => m.message).join(" ")).toContain("server/audit.ts");
    },
  );
});
