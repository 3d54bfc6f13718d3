import fs from 'node:fs';

import { z } from 'zod';

/** A setting that stops the start: its message says which variable and why. */
export class ConfigError extends Error {}

/**
 * Every setting the process reads from its environment, parsed once at start.
 * Nothing else in the code base reads process.env (Nango's rule): a typo here fails loudly
 * at boot instead of silently at the first request that needs the value.
 */
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

/** The origin of an http(s) URL that is only an origin (a trailing slash allowed), else null. */
function originOf(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.pathname !== '/' || /[?#]/.test(value)) return null;
  return url.origin;
}

/**
 * The variables that hold secrets. Each may instead be given as X_FILE, the path of a file holding the value (Docker
 * and Kubernetes secrets are mounted as files), so the value never sits in the environment of the process.
 */
export const SECRET_VARIABLES = ['DATABASE_URL', 'AGENTLINK_ENCRYPTION_KEY', 'AGENTLINK_MODEL_API_KEY', 'AGENTLINK_METRICS_TOKEN'] as const;

/**
 * The environment with every X_FILE read into X. The file's content is the value, without its final line break (what
 * `echo` and editors add). X and X_FILE both set, or a file that cannot be read, stop the start (naming the file only).
 */
export function withSecretFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`  ${name}_FILE: set only one of ${name} and ${name}_FILE`);
      continue;
    }
    try {
      out[name] = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      problems.push(`  ${name}_FILE: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return out;
}

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  AGENTLINK_PUBLIC_URL: z.string().url().optional(),
  /**
   * Further origins the connect widget is served from (besides AGENTLINK_PUBLIC_URL's), comma-separated: only these
   * may open the live view's WebSocket. Each is an origin (scheme://host[:port]), nothing more.
   */
  AGENTLINK_WIDGET_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const entry of (v ?? '').split(',').map((x) => x.trim())) {
        if (!entry) continue;
        const origin = originOf(entry);
        if (!origin) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${entry}" is not an origin (http(s)://host[:port], no path)` });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    }),
  /** How the other API processes reach this one (widget calls of a link session this process holds are relayed here). */
  AGENTLINK_INTERNAL_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'AGENTLINK_INTERNAL_URL must be an http:// or https:// URL')
    .optional(),
  AGENTLINK_DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  AGENTLINK_ENCRYPTION_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AGENTLINK_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(256 * 1024),
  AGENTLINK_LINK_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(24 * 3600)
    .default(30 * 60),
  AGENTLINK_PUBLIC_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(24 * 3600)
    .default(30 * 60),
  AGENTLINK_SANDBOX_HOST_SUFFIX: z
    .string()
    .regex(/^[a-z0-9.-]+$/i)
    .default('sandbox.localhost'),
  /** Whether an organization's own sandbox providers may reach private networks (10/8, 172.16/12, 192.168/16, CGNAT, IPv6 ULA). */
  AGENTLINK_SANDBOX_PRIVATE_NETWORK: z.enum(['deny', 'allow']).default('deny'),
  AGENTLINK_TRUST_PROXY: bool.default('false'),
  AGENTLINK_LIVE_MAX_SESSIONS: z.coerce.number().int().min(0).max(256).default(8),
  AGENTLINK_LIVE_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).default(180),
  /**
   * How long a sign-in by recipe (a hosted link, a silent re-login) waits for the site to show a page the recipe knows
   * after each step, before it treats the page as a step it cannot do (the live view, or NEEDS_USER).
   */
  AGENTLINK_LOGIN_STEP_SECONDS: z.coerce.number().int().min(2).max(300).default(20),
  AGENTLINK_CHROMIUM_PATH: z.string().optional(),
  AGENTLINK_MODEL_BASE_URL: z.string().url().optional(),
  AGENTLINK_MODEL: z.string().min(1).optional(),
  AGENTLINK_MODEL_API_KEY: z.string().optional(),
  AGENTLINK_MODEL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  AGENTLINK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  AGENTLINK_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(10),
  AGENTLINK_QUEUE: z.enum(['embedded', 'pg-boss']).optional(),
  AGENTLINK_WORKER_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  AGENTLINK_WORKER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(5).default(2),
  AGENTLINK_MAX_WAITING_RUNS: z.coerce.number().int().min(0).max(256).default(16),
  /**
   * Seconds a context opened for the next run of a connection (fresh mode), or a finished run's own (reuse), is kept
   * for that run; 0: never, every run opens its own. On by default since the context is prepared with its tab (fresh):
   * bench:agent measured a run's whole request at 0.87-0.89x the Playwright floor against 1.09-1.16x without, and
   * bench:scale 7.44 against 6.89 requests a second in one process.
   */
  AGENTLINK_WARM_CONTEXT_SECONDS: z.coerce.number().int().min(0).max(600).default(30),
  /**
   * How a warm context is made (with AGENTLINK_WARM_CONTEXT_SECONDS > 0): `fresh`, a new context, which no page has run in,
   * is opened for the connection's next run as a run ends, loaded with the session just sealed: no run's state ever reaches
   * another run (default); `reuse`, the finished run's own context is kept (its cache too).
   */
  AGENTLINK_WARM_CONTEXT_MODE: z.enum(['fresh', 'reuse']).default('fresh'),
  /** Contexts kept warm at once by one worker process (the oldest goes first). */
  AGENTLINK_WARM_CONTEXTS_MAX: z.coerce.number().int().min(0).max(256).default(8),
  AGENTLINK_USER_ACTION_TTL_SECONDS: z.coerce.number().int().min(5).max(3600).default(600),
  /** Default seconds between two scheduled checks of a connection's session (each jittered); 0 turns the scheduler off. */
  AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .default(4 * 3600),
  /** Health checks one process runs at once (each holds a browser context). */
  AGENTLINK_HEALTH_CHECK_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Time budget of one check, re-login included; past it the check ends TIMED_OUT and changes nothing. */
  AGENTLINK_HEALTH_CHECK_BUDGET_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** How long a sandbox session of the test user user_expiring lasts. */
  AGENTLINK_SANDBOX_EXPIRING_SESSION_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(60),
  // A CDP endpoint: the browser's ws:// URL, or its http:// debugging address (the ws:// URL is looked up there).
  /**
   * PEM file of extra roots an upstream TLS certificate may chain to (an intranet provider's private CA). The egress
   * proxy verifies every upstream certificate itself, against the system's roots and these.
   */
  AGENTLINK_UPSTREAM_CA_FILE: z.string().min(1).optional(),
  BROWSER_WS_ENDPOINT: z
    .string()
    .regex(/^(wss?|https?):\/\//, 'BROWSER_WS_ENDPOINT must be a ws://, wss://, http:// or https:// URL')
    .optional(),
  // OpenTelemetry's standard variables (https://opentelemetry.io/docs/specs/otel/protocol/exporter/).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/json', 'http/protobuf', 'grpc'])
    .optional()
    .refine((p) => p !== 'grpc', "AgentLink exports traces over OTLP/HTTP (http/json); point it at the collector's HTTP port (4318)"),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/json', 'http/protobuf', 'grpc'])
    .optional()
    .refine((p) => p !== 'grpc', "AgentLink exports traces over OTLP/HTTP (http/json); point it at the collector's HTTP port (4318)"),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
  AGENTLINK_PROVIDERS_FILE: z.string().min(1).optional(),
  /** `agentlink mcp` (the stdio MCP server): the AgentLink it forwards to (default the public URL) and the credentials it uses. */
  AGENTLINK_BASE_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'AGENTLINK_BASE_URL must be an http:// or https:// URL')
    .optional(),
  AGENTLINK_CLIENT_ID: z.string().min(1).max(200).optional(),
  AGENTLINK_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  AGENTLINK_METRICS_TOKEN: z.string().min(16, 'AGENTLINK_METRICS_TOKEN must be at least 16 characters').optional(),
  AGENTLINK_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).max(100_000).default(100),
  AGENTLINK_RATE_LIMIT_BURST: z.coerce.number().int().min(0).max(1_000_000).default(200),
  AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: z.coerce.number().int().min(1).max(100_000).default(10),
  AGENTLINK_AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  AGENTLINK_AUTH_FAILURE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(60),
  /** Who may create a dashboard account: closed (nobody), invite (with an invitation link), open (anyone). */
  AGENTLINK_SIGNUP: z.enum(['closed', 'invite', 'open']).optional(),
  // The secrets as files (withSecretFiles reads them before this schema runs): listed so deployment files may set them.
  DATABASE_URL_FILE: z.string().min(1).optional(),
  AGENTLINK_ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
  AGENTLINK_MODEL_API_KEY_FILE: z.string().min(1).optional(),
  AGENTLINK_METRICS_TOKEN_FILE: z.string().min(1).optional(),
});

/** Every variable the configuration reads (deployment files are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);
