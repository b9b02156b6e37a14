import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/**/*.test.ts"],
    // tests/system runs in its own stage (vitest.system.config.ts) against the built app.
    exclude: ["tests/e2e/**", "tests/system/**", "node_modules/**"],
    environment: "node",
    // Each file runs in its own process on its own copy of the database (tests/setup.ts), so files
    // may run side by side: the clock they move and the leases they sweep are their own.
    fileParallelism: true,
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    // A failure bound, never an outcome: no test waits on a timer to decide what it asserts. The
    // bound fits a two-core machine under full load (a test that makes 46 jobs one by one took
    // 30.1 s there), so a slow machine cannot turn a passing test into a failing one.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    setupFiles: ["tests/setup.ts"],
  },
});
