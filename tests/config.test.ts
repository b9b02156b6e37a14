import { describe, expect, it } from "vitest";
import fs from "node:fs";
import {
  assertConfig,
  ConfigError,
  configProblems,
  isProduction,
  jobConfig,
  quotaConfig,
  setting,
  SETTINGS,
} from "@/server/config";

/** server/config.ts: the one validated configuration module. */
const PRODUCTION_OK = {
  NODE_ENV: "production",
  DATABASE_URL: "postgresql://app:pw@db.internal:5432/ajr",
  BETTER_AUTH_SECRET: "s".repeat(40),
  BETTER_AUTH_URL: "https://jobs.example.com",
  APP_ENCRYPTION_KEY: "ab".repeat(32),
  METRICS_TOKEN: "metrics-token-0123456789",
};

describe("configuration", () => {
  it("a complete production environment has no problems", () => {
    expect(configProblems(PRODUCTION_OK)).toEqual([]);
    expect(() => assertConfig(PRODUCTION_OK)).not.toThrow();
  });

  it("names every missing production setting at once, and what it is for", () => {
    const problems = configProblems({ NODE_ENV: "production" });
    for (const name of [
      "DATABASE_URL",
      "BETTER_AUTH_SECRET",
      "BETTER_AUTH_URL",
      "APP_ENCRYPTION_KEY",
      "METRICS_TOKEN",
    ]) {
      expect(problems.find((p) => p.startsWith(`${name}: required in production`))).toBeTruthy();
    }
    expect(problems).toHaveLength(5);
  });

  it("production refuses http:// for BETTER_AUTH_URL and OIDC_ISSUER by name, except on a loopback host", () => {
    const oidc = { OIDC_CLIENT_ID: "runtime", OIDC_CLIENT_SECRET: "idp-secret-value" };
    const problems = configProblems({
      ...PRODUCTION_OK,
      ...oidc,
      BETTER_AUTH_URL: "http://jobs.example.com",
      OIDC_ISSUER: "http://idp.example.com/realms/school",
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^BETTER_AUTH_URL: must be https:\/\/ in production/);
    expect(problems[1]).toMatch(/^OIDC_ISSUER: must be https:\/\/ in production/);
    for (const host of ["localhost:3000", "127.0.0.1:8080", "[::1]:9000"]) {
      expect(
        configProblems({
          ...PRODUCTION_OK,
          ...oidc,
          BETTER_AUTH_URL: `http://${host}`,
          OIDC_ISSUER: `http://${host}/idp`,
        }),
      ).toEqual([]);
    }
    // A name that only starts like a loopback host is not one.
    expect(configProblems({ ...PRODUCTION_OK, BETTER_AUTH_URL: "http://127.0.0.1.evil.test" })).toHaveLength(1);
    expect(configProblems({ ...PRODUCTION_OK, BETTER_AUTH_URL: "http://localhost.evil.test" })).toHaveLength(1);
    // Outside production (zero-setup, tests) http stays allowed.
    expect(
      configProblems({ BETTER_AUTH_URL: "http://jobs.example.com", OIDC_ISSUER: "http://idp.example.com", ...oidc }),
    ).toEqual([]);
  });

  it("sign-up and single sign-on settings: invalid values are named; OIDC_* all three or none", () => {
    const text = configProblems({
      ...PRODUCTION_OK,
      SIGNUP_MODE: "everyone",
      SIGNUP_EMAIL_DOMAINS: "example.com, not a domain",
      OIDC_ISSUER: "https://idp.example.com",
      OIDC_CLIENT_SECRET: "idp-secret-value",
    }).join("\n");
    expect(text).toMatch(/SIGNUP_MODE: closed, invite or open, got "everyone"/);
    expect(text).toMatch(/SIGNUP_EMAIL_DOMAINS: "not a domain" is not a domain/);
    expect(text).toMatch(/OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three or none/);
    expect(() => assertConfig({ ...PRODUCTION_OK, SIGNUP_MODE: "everyone" })).toThrow(/SIGNUP_MODE/);
    expect(setting("SIGNUP_MODE", {})).toBe("invite");
    expect(setting("SIGNUP_EMAIL_DOMAINS", { SIGNUP_EMAIL_DOMAINS: " @School.test, uni.test " })).toEqual([
      "school.test",
      "uni.test",
    ]);
    expect(
      configProblems({
        ...PRODUCTION_OK,
        OIDC_ISSUER: "https://idp.example.com",
        OIDC_CLIENT_ID: "app",
        OIDC_CLIENT_SECRET: "idp-secret-value",
      }),
    ).toEqual([]);
  });

  it("names invalid values with what is expected, hiding secret values", () => {
    const problems = configProblems({
      ...PRODUCTION_OK,
      DB_POOL_MAX: "lots",
      JOB_LEASE_SECONDS: "0",
      BETTER_AUTH_URL: "ftp://jobs",
      APP_ENCRYPTION_KEY: "too-short-secret-value",
      BETTER_AUTH_SECRET: "short",
      JOB_WEBHOOK_URL: "https://hooks.example.com/x",
    });
    const text = problems.join("\n");
    expect(text).toMatch(/DB_POOL_MAX: a number, got "lots"/);
    expect(text).toMatch(/JOB_LEASE_SECONDS: at least 1, got "0"/);
    expect(text).toMatch(/BETTER_AUTH_URL: .*got "ftp:\/\/jobs"/);
    expect(text).toMatch(/APP_ENCRYPTION_KEY: 32 bytes.*\(value hidden\)/);
    expect(text).toMatch(/BETTER_AUTH_SECRET: at least 32 characters \(value hidden\)/);
    expect(text).toMatch(/JOB_WEBHOOK_URL and JOB_WEBHOOK_SECRET: set both or neither/);
    expect(text).not.toContain("too-short-secret-value");
    expect(problems).toHaveLength(6);
  });

  it("hostile values are problems, never crashes", () => {
    for (const raw of ["\u0000", "\ud800", "__proto__", "toString", "9".repeat(400), "{".repeat(5000)]) {
      expect(() =>
        configProblems({ ...PRODUCTION_OK, DB_POOL_MAX: raw, DATABASE_URL: raw, BETTER_AUTH_URL: raw }),
      ).not.toThrow();
      expect(configProblems({ ...PRODUCTION_OK, DB_POOL_MAX: raw }).length).toBe(1);
    }
  });

  it("only NODE_ENV=production without the one-machine opt-in is production", () => {
    expect(isProduction({ NODE_ENV: "production" })).toBe(true);
    expect(isProduction({ NODE_ENV: "production", ALLOW_GENERATED_SECRETS: "1" })).toBe(false);
    expect(isProduction({})).toBe(false);
    expect(configProblems({ NODE_ENV: "production", ALLOW_GENERATED_SECRETS: "1" })).toEqual([]);
    expect(configProblems({})).toEqual([]);
  });

  it("setting() applies defaults, follows changes and throws a ConfigError naming the setting", () => {
    expect(setting("JOB_LEASE_SECONDS", {})).toBe(60);
    expect(setting("JOB_LEASE_SECONDS", { JOB_LEASE_SECONDS: " " })).toBe(60);
    const saved = process.env.DB_POOL_MAX;
    try {
      process.env.DB_POOL_MAX = "7";
      expect(setting("DB_POOL_MAX")).toBe(7);
      process.env.DB_POOL_MAX = "8";
      expect(setting("DB_POOL_MAX")).toBe(8);
      process.env.DB_POOL_MAX = "-1";
      expect(() => setting("DB_POOL_MAX")).toThrow(ConfigError);
      expect(() => setting("DB_POOL_MAX")).toThrow(/DB_POOL_MAX: at least 1/);
    } finally {
      if (saved === undefined) delete process.env.DB_POOL_MAX;
      else process.env.DB_POOL_MAX = saved;
    }
  });

  it("per-type quotas: unset or blank gives the defaults, the declared value none sets none, a bad list is a problem", () => {
    expect(setting("QUOTA_JOB_TYPE_PER_HOUR", {})).toEqual({ quiz_generation: 10, flashcard_generation: 10 });
    expect(setting("QUOTA_JOB_TYPE_PER_HOUR", { QUOTA_JOB_TYPE_PER_HOUR: " " })).toEqual({
      quiz_generation: 10,
      flashcard_generation: 10,
    });
    expect(setting("QUOTA_JOB_TYPE_PER_HOUR", { QUOTA_JOB_TYPE_PER_HOUR: "none" })).toEqual({});
    expect(
      setting("QUOTA_JOB_TYPE_PER_HOUR", { QUOTA_JOB_TYPE_PER_HOUR: "quiz_generation=3, flashcard_generation = 0" }),
    ).toEqual({ quiz_generation: 3, flashcard_generation: 0 });
    for (const bad of ["quiz_generation", "quiz_generation=-1", "quiz_generation=x", "__proto__=1;x"]) {
      expect(configProblems({ QUOTA_JOB_TYPE_PER_HOUR: bad }).join()).toMatch(
        /QUOTA_JOB_TYPE_PER_HOUR: .* is not <jobType>=<count>/,
      );
    }
    const before = process.env.QUOTA_JOB_TYPE_PER_HOUR;
    try {
      process.env.QUOTA_JOB_TYPE_PER_HOUR = "quiz_generation=3";
      expect(quotaConfig.jobTypePerHour).toEqual({ quiz_generation: 3 });
      process.env.QUOTA_JOB_TYPE_PER_HOUR = "none";
      expect(quotaConfig.jobTypePerHour).toEqual({});
    } finally {
      if (before === undefined) delete process.env.QUOTA_JOB_TYPE_PER_HOUR;
      else process.env.QUOTA_JOB_TYPE_PER_HOUR = before;
    }
  });

  it("the per-part objects read their setting on each access", () => {
    const saved = process.env.JOB_LEASE_SECONDS;
    try {
      process.env.JOB_LEASE_SECONDS = "7";
      expect(jobConfig.leaseSeconds).toBe(7);
      process.env.JOB_LEASE_SECONDS = "9";
      expect(jobConfig.leaseSeconds).toBe(9);
      expect(Object.keys(jobConfig)).toContain("sweepBatchSize");
    } finally {
      if (saved === undefined) delete process.env.JOB_LEASE_SECONDS;
      else process.env.JOB_LEASE_SECONDS = saved;
    }
  });

  it("docs/operations.md documents every setting", () => {
    const doc = fs.readFileSync("docs/operations.md", "utf8");
    expect(Object.keys(SETTINGS).filter((name) => !doc.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
