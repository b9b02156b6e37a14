function num(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got ${raw}`);
  return value;
}

/** Job engine settings; defaults are SPEC §4's. Read on each call so tests can adjust them. */
export const jobConfig = {
  get leaseSeconds() {
    return num("JOB_LEASE_SECONDS", 60);
  },
  get defaultTimeoutSeconds() {
    return num("JOB_TIMEOUT_SECONDS", 120);
  },
  get defaultMaxRetryCount() {
    return num("JOB_MAX_RETRY_COUNT", 3);
  },
  get pollIntervalMs() {
    return num("RUNTIME_POLL_INTERVAL_MS", 2000);
  },
  /** First retry waits this long (seed 004's 5 s); each further retry doubles it, with jitter. */
  get backoffBaseMs() {
    return num("JOB_BACKOFF_BASE_MS", 5000);
  },
  get backoffCapMs() {
    return num("JOB_BACKOFF_CAP_MS", 5 * 60_000);
  },
  get sweepBatchSize() {
    return num("JOB_SWEEP_BATCH", 1000);
  },
};

/** The embedded development/test PostgreSQL (scripts/lib/embedded-db.ts). */
export const devDbConfig = {
  /** Statements slower than this are written to the server's log file (`<data folder>/log/`); -1 turns it off. */
  get slowStatementMs() {
    return num("EMBEDDED_PG_SLOW_MS", 100);
  },
};

/** Console rollups (server/observability/rollups.ts, docs/console-performance.md). */
export const rollupConfig = {
  /** How often each app process tries to fold new job events into the rollups. */
  get intervalMs() {
    return num("ROLLUP_INTERVAL_MS", 5000);
  },
  /** Counters are recounted from the table this often (retention deletes jobs with their events). */
  get recountHours() {
    return num("ROLLUP_RECOUNT_HOURS", 24);
  },
  /** Events folded per transaction while catching up. */
  get chunk() {
    return num("ROLLUP_CHUNK_EVENTS", 200_000);
  },
};

/** Web and sign-in hardening (docs/security.md). Read on each call so tests can adjust them. */
export const webSecurityConfig = {
  /** Largest request body the tRPC and auth routes accept; larger ones get 413 before being read. */
  get maxBodyBytes() {
    return num("WEB_MAX_BODY_BYTES", 1024 * 1024);
  },
  /**
   * How many reverse proxies in front of the app append to X-Forwarded-For. The client is the
   * entry that many places from the right (the production server appends the socket's address
   * itself); anything further left was written by the client and is not trusted.
   */
  get trustedProxyHops() {
    return num("TRUSTED_PROXY_HOPS", 0);
  },
  /** Failed sign-ins from one client at one account before that pair is locked for the window. */
  get signInMaxFailures() {
    return num("AUTH_MAX_FAILED_SIGN_INS", 5);
  },
  get signInWindowMs() {
    return num("AUTH_FAILED_SIGN_IN_WINDOW_SECONDS", 15 * 60) * 1000;
  },
  /** Failed sign-ins at one account (all clients) after which every further attempt is slowed. */
  get accountSlowdownAfter() {
    return num("AUTH_ACCOUNT_SLOWDOWN_AFTER", 10);
  },
  /** The first slowed attempt waits this long; each further failure doubles it, up to the cap. */
  get accountSlowdownBaseMs() {
    return num("AUTH_ACCOUNT_SLOWDOWN_BASE_MS", 500);
  },
  get accountSlowdownCapMs() {
    return num("AUTH_ACCOUNT_SLOWDOWN_CAP_MS", 10_000);
  },
  /** better-auth's per-IP budget for sign-in attempts. */
  get signInPerIpPerMinute() {
    return num("AUTH_SIGN_IN_PER_IP_PER_MINUTE", 20);
  },
};

/** The port the app listens on; in zero-setup mode (no BETTER_AUTH_URL) the only trusted local origin's port. */
export const appConfig = {
  get port() {
    return num("PORT", 3000);
  },
};

/** Console alerts (banner and /api/metrics gauges); see docs/console-and-learner.md. */
export const alertConfig = {
  /** A Runtime counts as live for its job types if it called in within this many seconds. */
  get runtimeSilentSeconds() {
    return num("ALERT_RUNTIME_SILENT_SECONDS", 120);
  },
  /** The oldest visible pending job is older than this: work is piling up. */
  get oldestPendingSeconds() {
    return num("ALERT_OLDEST_PENDING_SECONDS", 600);
  },
  /** Share of jobs finished in the last 15 minutes that failed, above which the console warns. */
  get failureRate() {
    return num("ALERT_FAILURE_RATE", 0.25);
  },
  /** Fewer finished jobs than this in the window raise no failure-rate alert (1 of 1 is not a spike). */
  get failureMinJobs() {
    return num("ALERT_FAILURE_MIN_JOBS", 5);
  },
};

/** Background bulk actions of the console (server/admin/bulk*.ts). */
export const bulkConfig = {
  /** Jobs per batch: each batch is one short transaction, so row locks stay brief and cancel is prompt. */
  get batchSize() {
    return num("BULK_BATCH_SIZE", 200);
  },
};

/** Model provider settings of the in-app worker (the reference Runtime has the same names). */
export const providerConfig = {
  /** Cap on one model answer, in bytes; a larger one is cut off and fails INVALID_SCHEMA. */
  get deepseekMaxResponseBytes() {
    return num("DEEPSEEK_MAX_RESPONSE_BYTES", 1024 * 1024);
  },
};

/**
 * Per-learner quotas on job creation (issue 13). Windows are UTC hours and days; every job a
 * learner creates counts once against each limit that applies. Admins can raise (or lower) one
 * learner's limit; that override wins over these defaults.
 */
export const quotaConfig = {
  get jobsPerHour() {
    return num("QUOTA_JOBS_PER_HOUR", 30);
  },
  get jobsPerDay() {
    return num("QUOTA_JOBS_PER_DAY", 100);
  },
  /**
   * Extra hourly limits for the job types that cost most (they generate the longest answers):
   * "quiz_generation=10,flashcard_generation=10". An empty value turns them off.
   */
  get jobTypePerHour(): Record<string, number> {
    const raw = process.env.QUOTA_JOB_TYPE_PER_HOUR ?? "quiz_generation=10,flashcard_generation=10";
    const out: Record<string, number> = {};
    for (const part of raw.split(",").map((p) => p.trim()).filter(Boolean)) {
      const [type, n] = part.split("=");
      const value = Number(n);
      if (!type || !Number.isInteger(value) || value < 0) throw new Error(`QUOTA_JOB_TYPE_PER_HOUR: "${part}" is not <jobType>=<count>`);
      out[type.trim()] = value;
    }
    return out;
  },
};

/**
 * Model usage and cost (docs/costs.md). Prices are per million tokens in `currency` (default US
 * dollars at DeepSeek's list price for deepseek-chat); the console's figures are estimates from
 * the tokens the Runtimes report, not an invoice.
 */
export const costConfig = {
  get pricePromptPerMTok() {
    return num("MODEL_PRICE_PROMPT_PER_MTOK", 0.27);
  },
  get priceCompletionPerMTok() {
    return num("MODEL_PRICE_COMPLETION_PER_MTOK", 1.1);
  },
  get currency() {
    return process.env.MODEL_PRICE_CURRENCY || "USD";
  },
  /**
   * Tokens one learner may spend on the platform key per UTC day (prompt + completion of the
   * attempts stored today); at or over it, new platform-key jobs are refused. 0 refuses them all.
   */
  get platformTokensPerDay() {
    return num("TOKEN_BUDGET_PER_DAY", 200_000);
  },
};
