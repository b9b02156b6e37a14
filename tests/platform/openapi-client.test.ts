import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlatformOpenApi } from "@/server/platform/openapi";
import { typedClient } from "../helpers/typed-client";

/**
 * A learning platform's TypeScript team works from /api/v1/openapi.json alone: openapi-typescript
 * generates its client, and a fixture that writes wrong error codes, wrong details, export
 * sections and webhook fields that do not exist must fail to compile exactly there.
 */
const FIXTURE = path.join(import.meta.dirname, "typed-client", "client.fixture.ts");
let client: Awaited<ReturnType<typeof typedClient>>;

beforeAll(async () => {
  client = await typedClient(buildPlatformOpenApi(), "platform-api");
});
afterAll(() => client.remove());

describe("a typed client generated from the platform API's OpenAPI document", () => {
  it(
    "compiles the fixture: every wrong code, details, export section and webhook field is refused where marked",
    { timeout: 120_000 },
    () => {
      const result = client.compileFixture(FIXTURE);
      expect(result.output).toBe("");
      expect(result.status).toBe(0);
    },
  );

  it(
    "without the markers, fails on exactly the marked lines (the refusals are the document's, not the fixture's)",
    { timeout: 120_000 },
    () => {
      const result = client.compileBare(FIXTURE);
      expect(result.marked.length).toBeGreaterThanOrEqual(12);
      expect(result.status).not.toBe(0);
      expect(result.refused).toEqual(result.marked);
    },
  );
});
