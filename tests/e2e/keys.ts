import { expect, type Locator, type Page } from "@playwright/test";

/** Keyboard-only helpers of the browser tests: where focus is, and Tab until it reaches a control. */
export const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement);
export const focusedIsBody = (page: Page) =>
  page.evaluate(() => !document.activeElement || document.activeElement === document.body);

/** Presses Tab (or Shift+Tab) until `target` has focus; returns how many presses it took. */
export async function tabTo(page: Page, target: Locator, opts: { back?: boolean; max?: number } = {}) {
  await expect(target).toBeVisible();
  for (let n = 1; n <= (opts.max ?? 120); n++) {
    await page.keyboard.press(opts.back ? "Shift+Tab" : "Tab");
    if (await isFocused(target)) return n;
  }
  throw new Error(`Tab never reached ${target}`);
}
