import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * System tests: the real app (`next start` of a production build) over real HTTP, with real
 * Runtime processes. `npm test` runs them after the unit and integration suite, on a database of their own.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/system/**/*.test.ts"],
    environment: "node",
    // Each file starts its own app server and Runtimes; one at a time keeps a 2-core machine honest.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 300_000,
    globalSetup: ["tests/system/global-setup.ts"],
    setupFiles: ["tests/setup.ts"],
  },
});
