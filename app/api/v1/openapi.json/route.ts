import { buildPlatformOpenApi } from "@/server/platform/openapi";

// The document only changes with the code: build it once per server process.
const body = JSON.stringify(buildPlatformOpenApi(), null, 2);

/** The platform API's OpenAPI 3.1 document. Public: it holds no data. */
export function GET() {
  return new Response(body, {
    headers: { "content-type": "application/json", "cache-control": "public, max-age=300" },
  });
}
