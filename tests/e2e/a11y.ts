import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * axe (WCAG 2.0/2.1 A and AA rules) over the page as it is now: no serious or critical
 * violation. Called at every state the browser tests take a screenshot of, so each page and
 * result state they visit is checked where it is. Failures name the rule, the elements and axe's
 * own summary of the fix.
 */
export async function expectAccessible(page: Page, state: string) {
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const bad = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes
        .slice(0, 5)
        .map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 3).join(" ")}`),
    }));
  expect(bad, `axe on "${state}":\n${JSON.stringify(bad, null, 2)}`).toEqual([]);
}
