import { z } from "zod";

/**
 * THE configuration of the app: every setting it reads from the environment, with its zod schema,
 * default and meaning (docs/operations.md is the same table for operators). Nothing else in
 * server/, app/ or components/ reads process.env (an ESLint rule holds that).
 *
 * `setting(name)` parses one value on each call (cached per raw string) so tests can change a
 * setting between calls; `configProblems()` checks them all at once, which is what `npm start`
 * runs before it opens a port.
 */
const text = z.string().min(1);
const num = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number({ error: "a number" }).min(min, `at least ${min}`).max(max, `at most ${max}`);
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => num(min, max).int("a whole number");
const flag = z.enum(["0", "1"]);
const url = z.url({ protocol: /^https?$/ });
const postgresUrl = z.string().regex(/^postgres(ql)?:\/\/\S+$/, "a postgres:// or postgresql:// URL");
/** "type=n,type=n" → {type: n} (a limit per job type); the declared value "none" sets no such limit. */
const perTypeLimits = z.string().transform((raw, ctx): Record<string, number> => {
  if (raw.trim() === "none") return {};
  const limits: [string, number][] = [];
  for (const part of raw
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)\s*=\s*(\d+)$/.exec(part);
    if (!m) {
      ctx.addIssue({ code: "custom", message: `"${part.slice(0, 40)}" is not <jobType>=<count>` });
      return z.NEVER;
    }
    limits.push([m[1]!, Number(m[2])]);
  }
  // fromEntries defines own properties: a name like __proto__ cannot reach the prototype.
  return Object.fromEntries(limits);
});
/** "example.com, school.edu" → ["example.com", "school.edu"]; blank → [] (any domain). */
const emailDomains = z.string().transform((raw, ctx): string[] => {
  const list = raw
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
  for (const domain of list) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain)) {
      ctx.addIssue({ code: "custom", message: `"${domain.slice(0, 60)}" is not a domain like example.com` });
      return z.NEVER;
    }
  }
  return list;
});
const encryptionKey = z.string().refine((raw) => {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  return key.length === 32;
}, "32 bytes: 64 hex characters or base64");

type Setting = { schema: z.ZodType; production?: true; secret?: true; doc: string };
const def = <S extends z.ZodType>(schema: S, doc: string, extra: { production?: true; secret?: true } = {}) => ({
  schema,
  doc,
  ...extra,
});

export const SETTINGS = {
  NODE_ENV: def(
    z.enum(["development", "production", "test"]).default("development"),
    "`production` for `npm start` (set by it)",
  ),
  ALLOW_GENERATED_SECRETS: def(
    flag.default("0"),
    "1 only on one machine (dev, demo, tests): secrets and tokens missing from the environment are generated into APP_DATA_DIR",
  ),
  APP_DATA_DIR: def(text.default(".data"), "folder of generated secrets in dev/demo"),
  DATABASE_URL: def(
    postgresUrl.optional(),
    "any PostgreSQL ≥ 13, directly or through a connection pooler (DATABASE_POOLER)",
    {
      production: true,
      secret: true,
    },
  ),
  DIRECT_DATABASE_URL: def(
    postgresUrl.optional(),
    "a direct session with the same PostgreSQL for what needs one: LISTEN/NOTIFY (live updates, long-poll wake-ups), advisory locks, the claim pool's session setting, migrations (default: DATABASE_URL)",
    { secret: true },
  ),
  DATABASE_POOLER: def(
    z.enum(["none", "session", "transaction"], { error: "none, session or transaction" }).default("none"),
    "what DATABASE_URL reaches: `none` (PostgreSQL itself), `session` (a session-mode pooler), `transaction` (a transaction-mode pooler such as PgBouncer's pool_mode = transaction: statements go unnamed; needs DIRECT_DATABASE_URL)",
  ),
  DB_POOL_MAX: def(int(1, 1000).default(10), "connections per app process"),
  DB_CLAIM_POOL_MAX: def(
    int(1, 1000).optional(),
    "connections per app process for Runtimes' claims and polls, beside DB_POOL_MAX (default: the same number)",
  ),
  DB_CONNECT_TIMEOUT_MS: def(int(100).default(10_000), "wait for a pool connection before answering 503"),
  DATABASE_READ_URL: def(
    postgresUrl.optional(),
    "a streaming standby of the same database for the console's heavy reads (explorer, job page, overview charts, an admin's export of a learner); the primary answers them while it is down or too far behind",
    { secret: true },
  ),
  DB_READ_MAX_LAG_SECONDS: def(
    num(0).default(30),
    "the most replay lag, in seconds, at which the standby of DATABASE_READ_URL still serves the console's reads",
  ),
  DB_READ_POOL_MAX: def(int(1, 1000).default(5), "connections per app process to DATABASE_READ_URL"),
  DB_RESERVE_POOL_MAX: def(
    int(1, 100).default(3),
    "connections per app process kept for sign-in, sessions and readiness, beside DB_POOL_MAX: no tenant's load reaches them",
  ),
  DB_STATEMENT_TIMEOUT_MS: def(
    int(0).default(60_000),
    "PostgreSQL statement_timeout of the app's connections: a statement running longer is cancelled (0 = none)",
  ),
  DB_COMMIT_TIMEOUT_MS: def(
    int(0).default(10_000),
    "the app's deadline on a commit (a COMMIT, or a statement outside a transaction after DB_STATEMENT_TIMEOUT_MS): past it the connection is closed and the request answers 503 OUTCOME_UNKNOWN (0 = none)",
  ),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: def(
    int(0).default(30_000),
    "PostgreSQL idle_in_transaction_session_timeout of the app's connections: a transaction left waiting longer loses its connection (0 = none)",
  ),
  EXPORTS_PER_LEARNER: def(
    int(1, 100).default(2),
    "downloads of exports one person has open at once (account page, console); one more answers 429",
  ),
  EXPORTS_PER_KEY: def(
    int(1, 100).default(4),
    "exports one platform service key has open at once; one more answers 429",
  ),
  EXPORTS_PER_INSTANCE: def(
    int(1, 1000).default(6),
    "export pages one app process reads at once; more wait their turn, shared one tenant after another",
  ),
  EXPORT_MIN_BYTES_PER_SECOND: def(
    int(1).default(1024),
    "an export whose reader takes less than this (over EXPORT_RATE_WINDOW_MS) is ended",
  ),
  EXPORT_RATE_WINDOW_MS: def(int(100).default(30_000), "the window over which an export's reader pace is measured"),
  EXPORT_MAX_SECONDS: def(int(1).default(3600), "an export still being read after this long is ended"),
  INGEST_PER_KEY: def(int(1, 100).default(2), "activity calls of one platform service key at once; more answer 429"),
  CARD_LOG_FULL_COOLDOWN_SECONDS: def(
    int(0, 3600).default(10),
    "after a 409 CARD_LOG_FULL, the same key's activity calls for that learner are 429 for this long, before their body is read",
  ),
  INGEST_PER_INSTANCE: def(int(1, 1000).default(4), "activity calls one app process stores at once; more answer 429"),
  BETTER_AUTH_SECRET: def(
    z.string().min(32, "at least 32 characters").optional(),
    "signs session cookies; the same on every instance",
    { production: true, secret: true },
  ),
  BETTER_AUTH_URL: def(url.optional(), "the app's public origin, e.g. https://jobs.example.com", { production: true }),
  TRUSTED_ORIGINS: def(z.string().default(""), "extra origins (comma-separated) allowed to call /api/trpc mutations"),
  APP_ENCRYPTION_KEY: def(
    encryptionKey.optional(),
    "AES-256-GCM key of learners' DeepSeek keys; the same on every instance",
    { production: true, secret: true },
  ),
  METRICS_TOKEN: def(z.string().min(16, "at least 16 characters").optional(), "bearer token of /api/metrics", {
    production: true,
    secret: true,
  }),
  SIGNUP_MODE: def(
    z.enum(["closed", "invite", "open"], { error: "closed, invite or open" }).default("invite"),
    "who may create an account: `invite` (admin invitations only), `open` (anyone, sign-up form), `closed` (neither; existing accounts still sign in)",
  ),
  SIGNUP_EMAIL_DOMAINS: def(
    emailDomains.prefault(""),
    "comma-separated email domains allowed to sign up or be created by single sign-on (blank: any); admin invitations are not limited",
  ),
  OIDC_ISSUER: def(
    url.optional(),
    "OpenID Connect issuer URL for single sign-on (with OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)",
  ),
  OIDC_CLIENT_ID: def(text.optional(), "this app's client id at the OpenID Connect provider"),
  OIDC_CLIENT_SECRET: def(text.optional(), "this app's client secret at the OpenID Connect provider", { secret: true }),
  OIDC_PROVIDER_NAME: def(
    z.string().trim().min(1).max(40, "at most 40 characters").default("single sign-on"),
    'the provider\'s name on the sign-in button ("Sign in with <name>")',
  ),
  AUTH_MAX_FAILED_SIGN_INS: def(int(1).default(5), "failed sign-ins per account that lock it"),
  AUTH_FAILED_SIGN_IN_WINDOW_SECONDS: def(int(1).default(900), "window (and lock) of the per-account limit"),
  AUTH_ACCOUNT_SLOWDOWN_AFTER: def(
    int(1).default(10),
    "failed sign-ins at one account (all clients) after which every attempt is slowed",
  ),
  AUTH_ACCOUNT_SLOWDOWN_BASE_MS: def(int(0).default(500), "first slowed sign-in waits this long, doubling per failure"),
  AUTH_ACCOUNT_SLOWDOWN_CAP_MS: def(int(0).default(10_000), "longest sign-in slowdown"),
  WEB_MAX_BODY_BYTES: def(int(1024).default(1024 * 1024), "largest body the tRPC and auth routes accept (413 above)"),
  TRUSTED_PROXY_HOPS: def(int(0, 20).default(0), "reverse proxies in front of the app that append to X-Forwarded-For"),
  PORT: def(
    int(1, 65535).default(3000),
    "the port the app listens on (zero-setup: the only trusted local origin's port)",
  ),
  AUTH_SIGN_IN_PER_IP_PER_MINUTE: def(int(1).default(20), "sign-in requests per client IP per minute"),
  JOB_LEASE_SECONDS: def(int(1).default(60), "lease after a lock or heartbeat"),
  JOB_TIMEOUT_SECONDS: def(int(10).default(120), "default execution timeout of new jobs"),
  JOB_CREATE_TIMEOUT_MS: def(
    int(100).default(10_000),
    "deadline of job creation's transaction (its lock and statement waits too); past it the creation answers 503 UNAVAILABLE with Retry-After",
  ),
  READY_DB_TIMEOUT_MS: def(
    int(100).default(2_000),
    "how long /api/health/ready waits for the database before it answers 503 (keep it under the probe's own timeout)",
  ),
  JOB_MAX_RETRY_COUNT: def(int(0, 100).default(3), "default retries of new jobs"),
  JOB_BACKOFF_BASE_MS: def(int(0).default(5000), "first retry delay (doubles per retry, equal jitter)"),
  JOB_BACKOFF_CAP_MS: def(int(0).default(300_000), "longest retry delay"),
  JOB_SWEEP_BATCH: def(int(1).default(1000), "rows per sweep statement"),
  JOB_RETENTION_DAYS: def(int(1).default(90), "finished jobs older than this are pruned"),
  JOB_PARTITION_DAYS: def(
    int(1).default(7),
    "width of a time partition of jobs, events and results (retention drops whole partitions)",
  ),
  SWEEP_INTERVAL_MS: def(int(100).default(60_000), "in-process lease sweep interval (zero-setup mode)"),
  IN_PROCESS_SCHEDULER: def(flag.default("1"), "0 turns the in-process scheduler off on this instance"),
  RUNTIME_POLL_INTERVAL_MS: def(int(0).default(2000), "pollIntervalMs told to idle Runtimes"),
  RUNTIME_MAX_BODY_BYTES: def(int(1024).default(256 * 1024), "request body limit of the Runtime routes (413 above)"),
  RUNTIME_KEY_RATE_LIMIT: def(
    int(1).default(20_000),
    "Runtime protocol requests per Runtime key per second, per app process (429 with Retry-After above)",
  ),
  RUNTIME_KEY_CONCURRENCY: def(
    int(1).default(1024),
    "Runtime protocol requests of one Runtime key at once (a parked long poll counts), per app process (429 with Retry-After above)",
  ),
  PLATFORM_API_MAX_BODY_BYTES: def(
    int(1024).default(2 * 1024 * 1024),
    "request body limit of the platform API, /api/v1 (413 above; a 200 KB material or 1,000 activity items fit)",
  ),
  PLATFORM_API_RATE_LIMIT: def(
    int(1).default(600),
    "platform API calls per service key per minute, counted in the database across instances (429 with Retry-After above)",
  ),
  SHUTDOWN_GRACE_MS: def(
    int(0).default(25_000),
    "on SIGTERM, how long in-flight requests may take before connections are closed",
  ),
  JOB_WEBHOOK_URL: def(url.optional(), "where finished jobs are announced (with JOB_WEBHOOK_SECRET)"),
  JOB_WEBHOOK_SECRET: def(text.optional(), "HMAC key of the webhook signature", { secret: true }),
  JOB_WEBHOOK_MAX_ATTEMPTS: def(int(1, 50).default(6), "zero-setup webhook: attempts per finished job"),
  JOB_WEBHOOK_BACKOFF_MS: def(int(0).default(1000), "zero-setup webhook: first retry delay, doubling"),
  SMTP_HOST: def(
    text.optional(),
    "the daily review digest's SMTP server; unset: no digest is sent (the account page says so)",
  ),
  SMTP_PORT: def(int(1, 65535).default(587), "SMTP port"),
  SMTP_SECURE: def(flag.default("0"), "1: TLS from the first byte (port 465); 0: STARTTLS when the server offers it"),
  SMTP_USER: def(text.optional(), "SMTP user name (with SMTP_PASSWORD)"),
  SMTP_PASSWORD: def(text.optional(), "SMTP password", { secret: true }),
  MAIL_FROM: def(text.default("AI Job Runtime <no-reply@localhost>"), "the digest's From address"),
  DIGEST_QUIET_START: def(
    int(0, 23).default(22),
    "digest quiet hours start (learner's local hour): none is sent from then",
  ),
  DIGEST_QUIET_END: def(
    int(0, 23).default(7),
    "digest quiet hours end (learner's local hour): a digest due in them waits until then",
  ),
  ALERT_RUNTIME_SILENT_SECONDS: def(
    int(1).default(120),
    "console alert: a Runtime is live for its job types if it called in within this many seconds",
  ),
  ALERT_OLDEST_PENDING_SECONDS: def(
    int(1).default(600),
    "console alert: the oldest visible pending job is older than this",
  ),
  ALERT_FAILURE_RATE: def(
    num(0, 1).default(0.25),
    "console alert: failed share of jobs finished in the last 15 minutes",
  ),
  ALERT_FAILURE_MIN_JOBS: def(
    int(1).default(5),
    "console alert: fewer finished jobs than this raise no failure-rate alert",
  ),
  BULK_BATCH_SIZE: def(int(1, 5000).default(200), "jobs per batch of a background bulk action"),
  BULK_BATCH_PAUSE_MS: def(
    int(0, 60_000).default(0),
    "pause between batches of a background bulk action (spreads a large one's load; 0 = back to back)",
  ),
  DEEPSEEK_MAX_RESPONSE_BYTES: def(int(1024).default(1024 * 1024), "largest DeepSeek answer the worker reads"),
  QUOTA_JOBS_PER_HOUR: def(int(0).default(30), "jobs a learner may start per hour"),
  QUOTA_JOBS_PER_DAY: def(int(0).default(100), "jobs a learner may start per day"),
  MODEL_PRICE_PROMPT_PER_MTOK: def(num(0).default(0.27), "price per million prompt tokens (cost accounting)"),
  MODEL_PRICE_COMPLETION_PER_MTOK: def(num(0).default(1.1), "price per million completion tokens"),
  MODEL_PRICE_PROMPT_CACHE_HIT_PER_MTOK: def(
    num(0).default(0.07),
    "price per million prompt tokens served from the provider's prompt cache (DeepSeek's cache-hit price)",
  ),
  TOKEN_BUDGET_PER_DAY: def(int(0).default(200_000), "tokens a learner may use per day"),
  QUOTA_JOB_TYPE_PER_HOUR: def(
    perTypeLimits.prefault("quiz_generation=10,flashcard_generation=10"),
    "per-type hourly job quotas: type=n, comma-separated; `none` sets none (blank, like unset, means the default)",
  ),
  MODEL_PRICE_CURRENCY: def(text.default("USD"), "currency of the model prices"),
  EMBEDDED_PG_SLOW_MS: def(
    int(-1).default(100),
    "embedded dev/test PostgreSQL: log statements slower than this (-1: off)",
  ),
  ROLLUP_INTERVAL_MS: def(
    int(100).default(5000),
    "how often each app process folds new job events into the console rollups",
  ),
  ROLLUP_RECOUNT_HOURS: def(int(1).default(24), "console rollup counters are recounted this often"),
  ROLLUP_CHUNK_EVENTS: def(int(1).default(200_000), "events folded per transaction while catching up"),
  INNGEST_DEV: def(flag.default("0"), "1: talk to a local Inngest dev server"),
  INNGEST_SIGNING_KEY: def(text.optional(), "Inngest Cloud / self-hosted signing key", { secret: true }),
  INNGEST_EVENT_KEY: def(text.optional(), "Inngest event key", { secret: true }),
  INNGEST_WORKER_JOB_TYPES: def(z.string().default(""), "job types the in-app worker takes: comma list or *"),
  INNGEST_WORKER_ID: def(text.default("inngest-worker"), "the worker's runtimeInstanceId"),
  INNGEST_WORKER_PROVIDER: def(z.enum(["auto", "local", "deepseek"]).default("auto"), "the worker's model provider"),
  INNGEST_WORKER_LOCAL_DELAY_MS: def(int(0).default(0), "stand-in model latency of the local analyzer"),
  INNGEST_WORKER_CONCURRENCY: def(int(1).default(4), "jobs the worker runs at once"),
  DEEPSEEK_API_KEY: def(text.optional(), "platform DeepSeek key of the in-app worker", { secret: true }),
  DEEPSEEK_BASE_URL: def(url.optional(), "DeepSeek API base URL"),
  DEEPSEEK_MODEL: def(text.optional(), "model name override"),
  DEEPSEEK_TIMEOUT_MS: def(int(1).optional(), "per-call model timeout"),
  OTEL_EXPORTER_OTLP_ENDPOINT: def(
    url.optional(),
    "OpenTelemetry: OTLP/HTTP collector base URL; traces go to <url>/v1/traces (unset, with the next one unset: no traces)",
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: def(
    url.optional(),
    "OpenTelemetry: the full OTLP/HTTP traces URL (wins over the base URL)",
  ),
  OTEL_SERVICE_NAME: def(text.default("ai-job-runtime"), "OpenTelemetry: service.name of this process's spans"),
  OTEL_SDK_DISABLED: def(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(["true", "false"], { error: "true or false" }))
      .default("false"),
    "OpenTelemetry: true turns traces off whatever else is set",
  ),
  OTEL_TRACES_SAMPLER: def(
    z
      .enum([
        "always_on",
        "always_off",
        "traceidratio",
        "parentbased_always_on",
        "parentbased_always_off",
        "parentbased_traceidratio",
      ])
      .default("parentbased_always_on"),
    "OpenTelemetry: which traces are kept (a job's spans follow its trace's decision)",
  ),
  OTEL_TRACES_SAMPLER_ARG: def(
    num(0, 1).optional(),
    "OpenTelemetry: the ratio of the traceidratio samplers (default 1)",
  ),
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
type Value<K extends SettingName> = z.output<(typeof SETTINGS)[K]["schema"]>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
}

type Env = Record<string, string | undefined>;
const cache = new Map<string, { raw: string | undefined; value: unknown }>();
const blank = (raw: string | undefined) => (raw === undefined || raw.trim() === "" ? undefined : raw);

function describe(name: SettingName, issues: z.core.$ZodIssue[], raw: string | undefined) {
  const shown =
    raw === undefined
      ? ""
      : SETTINGS[name].secret === true
        ? " (value hidden)"
        : `, got ${JSON.stringify(raw.slice(0, 80))}`;
  return `${name}: ${issues.map((i) => i.message).join("; ")}${shown} — ${SETTINGS[name].doc}`;
}

/** One setting, parsed and defaulted; throws ConfigError naming it when the value is invalid. */
export function setting<K extends SettingName>(name: K, env: Env = process.env): Value<K> {
  const raw = blank(env[name]);
  const hit = env === process.env ? cache.get(name) : undefined;
  if (hit && hit.raw === raw) return hit.value as Value<K>;
  const parsed = SETTINGS[name].schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError([describe(name, parsed.error.issues, raw)]);
  if (env === process.env) cache.set(name, { raw, value: parsed.data });
  return parsed.data as Value<K>;
}

/**
 * Production is NODE_ENV=production without the one-machine opt-in: then nothing may fall back to
 * a generated or demo value.
 */
export function isProduction(env: Env = process.env) {
  return env.NODE_ENV === "production" && blank(env.ALLOW_GENERATED_SECRETS) !== "1";
}

/** Every missing or invalid setting, one line each, naming it and what is expected. */
export function configProblems(env: Env = process.env): string[] {
  const problems: string[] = [];
  const production = isProduction(env);
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const spec: Setting = SETTINGS[name];
    const raw = blank(env[name]);
    if (raw === undefined && spec.production && production) {
      problems.push(`${name}: required in production — ${spec.doc}`);
      continue;
    }
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) problems.push(describe(name, parsed.error.issues, raw));
  }
  if (!!blank(env.JOB_WEBHOOK_URL) !== !!blank(env.JOB_WEBHOOK_SECRET))
    problems.push("JOB_WEBHOOK_URL and JOB_WEBHOOK_SECRET: set both or neither");
  if (!!blank(env.INNGEST_SIGNING_KEY) !== !!blank(env.INNGEST_EVENT_KEY))
    problems.push("INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY: set both or neither");
  if (
    blank(env.DATABASE_POOLER) === "transaction" &&
    (blank(env.DIRECT_DATABASE_URL) ?? env.DATABASE_URL) === env.DATABASE_URL
  )
    problems.push(
      "DIRECT_DATABASE_URL: required with DATABASE_POOLER=transaction, and not the pooler's URL — LISTEN/NOTIFY, advisory locks and session settings do not survive a transaction pooler (live updates and long-poll wake-ups would be lost)",
    );
  if (production) problems.push(...plainHttpProblems(env));
  const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter((v) => !!blank(v)).length;
  if (oidc !== 0 && oidc !== 3)
    problems.push("OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three or none");
  return problems;
}

/** The settings that switch OpenTelemetry traces on or off (server/observability/tracing-sdk.ts); the SDK reads the rest of OTEL_* itself. */
export function tracingEnv(env: Env = process.env): Env {
  return {
    OTEL_SDK_DISABLED: setting("OTEL_SDK_DISABLED", env),
    OTEL_TRACES_EXPORTER: env.OTEL_TRACES_EXPORTER,
    OTEL_EXPORTER_OTLP_ENDPOINT: setting("OTEL_EXPORTER_OTLP_ENDPOINT", env),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env),
  };
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * In production the session cookie's origin and the identity provider are reached over https
 * only: over http a network attacker reads the cookie, or answers discovery and the token exchange
 * and becomes anyone. A loopback host (a provider or proxy on the same machine) is the exception.
 */
function plainHttpProblems(env: Env): string[] {
  const problems: string[] = [];
  for (const name of ["BETTER_AUTH_URL", "OIDC_ISSUER"] as const) {
    const raw = blank(env[name]);
    if (!raw || !URL.canParse(raw)) continue;
    const { protocol, hostname } = new URL(raw);
    if (protocol === "http:" && !LOOPBACK.test(hostname))
      problems.push(
        `${name}: must be https:// in production (http:// only for a loopback host), got ${JSON.stringify(raw.slice(0, 80))}`,
      );
  }
  return problems;
}

/** Throws one ConfigError listing every problem (the production start calls this before listening). */
export function assertConfig(env: Env = process.env) {
  const problems = configProblems(env);
  if (problems.length) throw new ConfigError(problems);
}

/**
 * The settings each part reads, by plain names. Every property reads its setting on each access
 * (not once at import), so tests can change a setting between calls.
 */
function live<T extends Record<string, () => unknown>>(getters: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const out = {};
  for (const [name, get] of Object.entries(getters)) Object.defineProperty(out, name, { get, enumerable: true });
  return out as { readonly [K in keyof T]: ReturnType<T[K]> };
}

/**
 * Where each kind of database connection goes (docs/operations.md, "Connection pooler"): ordinary
 * statements and transactions to DATABASE_URL (a pooler, if DATABASE_POOLER says so); what needs a
 * session of its own (LISTEN, advisory locks, session settings, migrations) to sessionUrl. Behind a
 * transaction pooler, statements on the pooled URL go unnamed: PgBouncer before 1.21 hands each
 * transaction any server connection, where a statement prepared on another one does not exist.
 */
export const databaseConfig = live({
  url: () => setting("DATABASE_URL"),
  sessionUrl: () => setting("DIRECT_DATABASE_URL") ?? setting("DATABASE_URL"),
  namedStatements: () => setting("DATABASE_POOLER") !== "transaction",
});

/** Job engine settings; defaults are the protocol's (docs/contract.md#the-runtime-protocol). The first retry waits backoffBaseMs (5 s), doubling with jitter. */
export const jobConfig = live({
  leaseSeconds: () => setting("JOB_LEASE_SECONDS"),
  defaultTimeoutSeconds: () => setting("JOB_TIMEOUT_SECONDS"),
  defaultMaxRetryCount: () => setting("JOB_MAX_RETRY_COUNT"),
  createTimeoutMs: () => setting("JOB_CREATE_TIMEOUT_MS"),
  pollIntervalMs: () => setting("RUNTIME_POLL_INTERVAL_MS"),
  backoffBaseMs: () => setting("JOB_BACKOFF_BASE_MS"),
  backoffCapMs: () => setting("JOB_BACKOFF_CAP_MS"),
  sweepBatchSize: () => setting("JOB_SWEEP_BATCH"),
});

/** The embedded development/test PostgreSQL (scripts/lib/embedded-db.ts): slow statements go to `<data folder>/log/`. */
export const devDbConfig = live({ slowStatementMs: () => setting("EMBEDDED_PG_SLOW_MS") });

/**
 * Console rollups (server/observability/rollups.ts, docs/console-performance.md). Counters are
 * recounted from the table every recountHours because retention deletes jobs with their events.
 */
export const rollupConfig = live({
  intervalMs: () => setting("ROLLUP_INTERVAL_MS"),
  recountHours: () => setting("ROLLUP_RECOUNT_HOURS"),
  chunk: () => setting("ROLLUP_CHUNK_EVENTS"),
});

/**
 * Web and sign-in hardening (docs/security.md). trustedProxyHops: the client is the entry that
 * many places from the right of X-Forwarded-For (the production server appends the socket's
 * address itself); anything further left was written by the client and is not trusted.
 */
export const webSecurityConfig = live({
  maxBodyBytes: () => setting("WEB_MAX_BODY_BYTES"),
  trustedProxyHops: () => setting("TRUSTED_PROXY_HOPS"),
  signInMaxFailures: () => setting("AUTH_MAX_FAILED_SIGN_INS"),
  signInWindowMs: () => setting("AUTH_FAILED_SIGN_IN_WINDOW_SECONDS") * 1000,
  accountSlowdownAfter: () => setting("AUTH_ACCOUNT_SLOWDOWN_AFTER"),
  accountSlowdownBaseMs: () => setting("AUTH_ACCOUNT_SLOWDOWN_BASE_MS"),
  accountSlowdownCapMs: () => setting("AUTH_ACCOUNT_SLOWDOWN_CAP_MS"),
  signInPerIpPerMinute: () => setting("AUTH_SIGN_IN_PER_IP_PER_MINUTE"),
});

/** The port the app listens on; in zero-setup mode (no BETTER_AUTH_URL) the only trusted local origin's port. */
export const appConfig = live({ port: () => setting("PORT") });

/**
 * Console alerts (banner and /api/metrics gauges; docs/console-and-learner.md). Fewer finished
 * jobs than failureMinJobs raise no failure-rate alert: 1 failure of 1 is not a spike.
 */
/** The daily review digest's mail (server/notifications/digest*.ts). */
export const mailConfig = live({
  host: () => setting("SMTP_HOST"),
  port: () => setting("SMTP_PORT"),
  secure: () => setting("SMTP_SECURE") === "1",
  user: () => setting("SMTP_USER"),
  password: () => setting("SMTP_PASSWORD"),
  from: () => setting("MAIL_FROM"),
  quietStart: () => setting("DIGEST_QUIET_START"),
  quietEnd: () => setting("DIGEST_QUIET_END"),
});

export const alertConfig = live({
  runtimeSilentSeconds: () => setting("ALERT_RUNTIME_SILENT_SECONDS"),
  oldestPendingSeconds: () => setting("ALERT_OLDEST_PENDING_SECONDS"),
  failureRate: () => setting("ALERT_FAILURE_RATE"),
  failureMinJobs: () => setting("ALERT_FAILURE_MIN_JOBS"),
});

/**
 * Background bulk actions: each batch is one short transaction, so row locks stay brief and a stop
 * is prompt. The pause between batches lets a very large action yield to the queue's own traffic
 * (the browser tests use it to watch a run's progress).
 */
export const bulkConfig = live({
  batchSize: () => setting("BULK_BATCH_SIZE"),
  batchPauseMs: () => setting("BULK_BATCH_PAUSE_MS"),
});

/** The in-app worker's model provider: a larger answer than this is cut off and fails INVALID_SCHEMA. */
export const providerConfig = live({ deepseekMaxResponseBytes: () => setting("DEEPSEEK_MAX_RESPONSE_BYTES") });

/**
 * Per-learner quotas on job creation. Windows are UTC hours and days; every job a
 * learner creates counts once against each limit that applies; an admin's override for one
 * learner wins over these defaults. jobTypePerHour adds hourly limits for the job types that
 * cost most (they generate the longest answers).
 */
export const quotaConfig = live({
  jobsPerHour: () => setting("QUOTA_JOBS_PER_HOUR"),
  jobsPerDay: () => setting("QUOTA_JOBS_PER_DAY"),
  jobTypePerHour: () => setting("QUOTA_JOB_TYPE_PER_HOUR"),
});

/**
 * Model usage and cost (docs/costs.md). Prices are per million tokens in `currency` (default US
 * dollars at DeepSeek's list price for deepseek-chat); the console's figures are estimates from
 * the tokens the Runtimes report, not an invoice. platformTokensPerDay: tokens one learner may
 * spend on the platform key per UTC day; at or over it new platform-key jobs are refused (0: all).
 */
export const costConfig = live({
  pricePromptPerMTok: () => setting("MODEL_PRICE_PROMPT_PER_MTOK"),
  priceCompletionPerMTok: () => setting("MODEL_PRICE_COMPLETION_PER_MTOK"),
  pricePromptCacheHitPerMTok: () => setting("MODEL_PRICE_PROMPT_CACHE_HIT_PER_MTOK"),
  currency: () => setting("MODEL_PRICE_CURRENCY"),
  platformTokensPerDay: () => setting("TOKEN_BUDGET_PER_DAY"),
});

/**
 * Who may create an account (server/account/signup-policy.ts, docs/operations.md). emailDomains
 * limits self-service accounts (open sign-up and single sign-on), never an admin's invitation.
 */
export const signupConfig = live({
  mode: () => setting("SIGNUP_MODE"),
  emailDomains: () => setting("SIGNUP_EMAIL_DOMAINS"),
});

/** Single sign-on with one OpenID Connect provider; null when OIDC_ISSUER is not set. */
export function oidcConfig(env: Env = process.env) {
  const issuer = setting("OIDC_ISSUER", env);
  const clientId = setting("OIDC_CLIENT_ID", env);
  const clientSecret = setting("OIDC_CLIENT_SECRET", env);
  if (!issuer || !clientId || !clientSecret) return null;
  return { issuer, clientId, clientSecret, name: setting("OIDC_PROVIDER_NAME", env) };
}
