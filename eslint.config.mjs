import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// The framework rule of the domain (below): no Next, tRPC or Inngest outside the doors.
const FRAMEWORK_PATHS = [
  { name: "next", message: "domain code does not import Next.js; keep it in app/ or a door" },
  { name: "inngest", message: "domain code does not import Inngest; keep it in server/inngest" },
];
const FRAMEWORK_PATTERNS = [
  { group: ["next/*"], message: "domain code does not import Next.js; keep it in app/ or a door" },
  { group: ["@trpc/*"], message: "domain code does not import tRPC; keep it in server/trpc" },
  { group: ["inngest/*", "@inngest/*"], message: "domain code does not import Inngest; keep it in server/inngest" },
  {
    group: ["**/admin/audit"],
    importNames: ["recordAudit", "AuditEntry"],
    message: "recordAudit lives in server/audit.ts (the domain writes audit rows in its own transaction)",
  },
];

/**
 * server/jobs is the domain: everything else calls it, it calls nothing above it. It may import
 * itself, the job-type registry (server/job-types), the generated Prisma client and the shared
 * ground floor (db, clock, config, errors, sql, audit, security/, observability/metrics). The
 * messages name where the things that used to be fetched from above now live.
 */
const UPWARD_FROM_JOBS = [
  {
    group: ["../admin/*", "../../admin/*"],
    message:
      "server/jobs does not import the console (server/admin): recordAudit is in server/audit.ts, alerts in server/observability/alerts.ts",
  },
  {
    group: ["../runtime-api/*"],
    message: "server/jobs does not import the Runtime door: its limits live in server/jobs (e.g. rejection-limits.ts)",
  },
  {
    group: ["../events/*"],
    message: "server/jobs does not import server/events: the job-change payload is server/jobs/job-change.ts",
  },
  {
    group: [
      "../observability/*",
      "!../observability/metrics",
      "!../observability/tracing",
      "!../observability/job-spans",
    ],
    message:
      "server/jobs imports only observability/metrics, tracing and job-spans, its instruments (alerts and stats read the domain, not the reverse)",
  },
  {
    group: [
      "../trpc/*",
      "../inngest/*",
      "../learning/*",
      "../learners/*",
      "../auth/*",
      "../account/*",
      "../platform/*",
      "../pipeline/*",
      "../providers/*",
      "../scheduler/*",
      "../worker/*",
      "../notifications/*",
      "../runtime-keys",
      "../runtime-instances",
      "../background",
      "../startup",
      "../lifecycle",
      "../../runtime/*",
      "../../app/*",
      "../../components/*",
      "@/app/*",
      "@/components/*",
    ],
    message:
      "server/jobs is the domain: it imports only server/jobs, server/job-types, the Prisma client and the ground floor (db, clock, config, errors, sql, audit, security/, observability/metrics); move the shared piece down instead",
  },
];

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
      "no-restricted-imports": ["error", { paths: FRAMEWORK_PATHS, patterns: FRAMEWORK_PATTERNS }],
    },
  },
  {
    // The same, plus no upward import (a later rule replaces the earlier one's options, so both are listed).
    files: ["server/jobs/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: FRAMEWORK_PATHS, patterns: [...FRAMEWORK_PATTERNS, ...UPWARD_FROM_JOBS] },
      ],
    },
  },
];

export default config;
