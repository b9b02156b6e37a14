import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/**/*.test.ts"],
    // tests/system runs in its own stage (vitest.system.config.ts) against the built app.
    exclude: ["tests/e2e/**", "tests/system/**", "node_modules/**"],
    environment: "node",
    // Integration tests share one database and some move the clock and sweep every lease:
    // files run one at a time so they never expire each other's jobs.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ["tests/setup.ts"],
  },
});
