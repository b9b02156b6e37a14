import { buildOpenApiDocument } from "@/server/runtime-api/openapi";

// The document only changes with the code: build it once per server process.
const body = JSON.stringify(buildOpenApiDocument(), null, 2);

/** The Runtime protocol's OpenAPI 3.1 document, for other Runtime teams. Public: it holds no data. */
export function GET() {
  return new Response(body, {
    headers: { "content-type": "application/json", "cache-control": "public, max-age=300" },
  });
}
