import path from "node:path";
import { buildPlatformOpenApi } from "@/server/platform/openapi";
import { describeTypedClient } from "../helpers/typed-client";

/**
 * A learning platform's TypeScript team works from /api/v1/openapi.json alone: openapi-typescript
 * generates its client, and a fixture that writes wrong error codes, wrong details, export
 * sections and webhook fields that do not exist, starts jobs with wrong params or targets and
 * reads outputs of the wrong type must fail to compile exactly there.
 */
describeTypedClient(
  "a typed client generated from the platform API's OpenAPI document",
  buildPlatformOpenApi,
  "platform-api",
  path.join(import.meta.dirname, "typed-client", "client.fixture.ts"),
  24,
);
