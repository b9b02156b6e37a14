import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { JOB_TYPES } from "@/server/job-types";
import { loadConfig } from "@/runtime/config";

describe("reference Runtime configuration from the environment", () => {
  it("has working defaults: all job types, 4 at once, auto provider, 15 s heartbeats", () => {
    const c = loadConfig({ RUNTIME_API_KEY: "ajr_x" });
    expect(c).toMatchObject({
      apiUrl: "http://localhost:3000",
      concurrency: 4,
      provider: "auto",
      heartbeatMs: 15_000,
      pollIntervalMs: undefined,
    });
    expect([...c.capabilities].sort()).toEqual([...JOB_TYPES].sort());
    expect(c.instanceId).toMatch(/^[A-Za-z0-9._:@-]+$/);
    expect(c.deepseek).toMatchObject({ baseURL: "https://api.deepseek.com", apiKey: undefined, timeoutMs: 60_000 });
  });

  it("reads capabilities, concurrency, the key file and a trailing-slash URL", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rt-")), "key");
    fs.writeFileSync(file, "ajr_from_file\n");
    const c = loadConfig({
      RUNTIME_API_KEY_FILE: file,
      RUNTIME_API_URL: "http://api.test:8080/",
      RUNTIME_CAPABILITIES: "quiz_generation, flashcard_generation",
      RUNTIME_CONCURRENCY: "12",
    });
    expect(c).toMatchObject({
      apiKey: "ajr_from_file",
      apiUrl: "http://api.test:8080",
      concurrency: 12,
      capabilities: ["quiz_generation", "flashcard_generation"],
    });
  });

  it("refuses a configuration it cannot run with, saying what is wrong", () => {
    expect(() => loadConfig({})).toThrow(/RUNTIME_API_KEY/);
    expect(() => loadConfig({ RUNTIME_API_KEY: "k", RUNTIME_CAPABILITIES: "quiz_generation,essay_grading" })).toThrow(
      /essay_grading|Invalid option/,
    );
    expect(() => loadConfig({ RUNTIME_API_KEY: "k", RUNTIME_CONCURRENCY: "0" })).toThrow();
    expect(() => loadConfig({ RUNTIME_API_KEY: "k", RUNTIME_PROVIDER: "deepseek" })).toThrow(/DEEPSEEK_API_KEY/);
    expect(() => loadConfig({ RUNTIME_API_KEY: "k", RUNTIME_INSTANCE_ID: "has space" })).toThrow();
  });
});
