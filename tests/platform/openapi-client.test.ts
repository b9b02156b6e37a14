import path from "node:path";
import { GET as servedDocument } from "@/app/api/v1/openapi.json/route";
import { describeTypedClient } from "../helpers/typed-client";

/**
 * A learning platform's TypeScript team works from /api/v1/openapi.json alone, as served:
 * openapi-typescript generates its types and openapi-fetch its client, and a fixture that writes
 * wrong error codes, wrong details, export sections and webhook fields that do not exist, targets
 * of the wrong kind, starts jobs with wrong params and reads outputs of the wrong type must fail to
 * compile exactly there (each such line marked `@ts-expect-error`).
 */
describeTypedClient(
  "a typed client generated from the platform API's OpenAPI document",
  () => servedDocument().json(),
  "platform-api",
  path.join(import.meta.dirname, "typed-client", "client.fixture.ts"),
  30,
);
