import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".data/**",
      "server/generated/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Settings come from server/config.ts (validated with zod, one table); nothing else in the app reads the environment.
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["server/config.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "read settings through server/config.ts (setting())" },
      ],
    },
  },
  {
    // The domain runs the same from a route, a procedure, a workflow, a script or a test: no framework
    // imports. The doors (server/trpc, server/inngest, page guards, the production server) are exempt.
    files: ["server/**/*.{ts,tsx,mjs}"],
    ignores: [
      "server/trpc/**",
      "server/inngest/**",
      "server/auth/page-guards.ts",
      "server/production-server.mjs",
      "server/generated/**",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "next", message: "domain code does not import Next.js; keep it in app/ or a door" },
            { name: "inngest", message: "domain code does not import Inngest; keep it in server/inngest" },
          ],
          patterns: [
            { group: ["next/*"], message: "domain code does not import Next.js; keep it in app/ or a door" },
            { group: ["@trpc/*"], message: "domain code does not import tRPC; keep it in server/trpc" },
            {
              group: ["inngest/*", "@inngest/*"],
              message: "domain code does not import Inngest; keep it in server/inngest",
            },
          ],
        },
      ],
    },
  },
];

export default config;
