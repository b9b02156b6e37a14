import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildPlatformOpenApi } from "@/server/platform/openapi";
import { buildOpenApiDocument } from "@/server/runtime-api/openapi";

/**
 * Each version of a document is one document (docs/contract.md#versions-and-the-compatibility-promise):
 * versions.json records the SHA-256 of each published version's text (without its version).
 * A change to a document without a new version fails here: give it its semver (a major when it
 * breaks a client, with a CHANGELOG entry saying what to do) and record its hash.
 */
const RECORD = path.join(import.meta.dirname, "versions.json");
const recorded = JSON.parse(fs.readFileSync(RECORD, "utf8")) as Record<"runtime" | "platform", Record<string, string>>;

function hashOf(doc: { info: { version: string } }) {
  const { version: _v, ...info } = doc.info;
  return createHash("sha256")
    .update(JSON.stringify({ ...doc, info }))
    .digest("hex");
}
const semver = (v: string) => v.split(".").map(Number) as [number, number, number];
const later = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  return x[0] !== y[0] ? x[0] > y[0] : x[1] !== y[1] ? x[1] > y[1] : x[2] > y[2];
};

describe("each document's version names one document", () => {
  for (const [name, build] of [
    ["runtime", buildOpenApiDocument],
    ["platform", buildPlatformOpenApi],
  ] as const) {
    it(`the ${name} document is the one its version recorded`, () => {
      const doc = build() as { info: { version: string } };
      expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
      const versions = Object.keys(recorded[name]);
      // The current version is the latest recorded; a recorded hash never changes.
      expect(versions.every((v) => v === doc.info.version || later(doc.info.version, v))).toBe(true);
      expect(
        recorded[name][doc.info.version],
        `the ${name} document changed: give it a new version (semver) and record ${hashOf(doc)} for it in ${RECORD}`,
      ).toBe(hashOf(doc));
    });
  }
});
