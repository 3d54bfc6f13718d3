import fs from 'node:fs';
import path from 'node:path';

import { z } from 'zod';

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

const EnvSchema = z.object({
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
   * Seconds a finished run's browser context is kept for the next run of the same connection; 0 (default): never kept.
   * Off by default: on the sandbox's cookie sessions it measured no throughput gain (bench:agent), and idle contexts
   * slowed the browser's other work; it pays where a session carries localStorage, which a fresh context loads page by page.
   */
  AGENTLINK_WARM_CONTEXT_SECONDS: z.coerce.number().int().min(0).max(600).default(0),
  /**
   * How a warm context is made (with AGENTLINK_WARM_CONTEXT_SECONDS > 0): `fresh`, a new context, which no page has run in,
   * is opened for the connection's next run as a run ends, loaded with the session just sealed: no run's state ever reaches
   * another run; `reuse` (default, as before), the finished run's own context is kept (its cache too).
   */
  AGENTLINK_WARM_CONTEXT_MODE: z.enum(['fresh', 'reuse']).default('reuse'),
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

export type SignupMode = 'closed' | 'invite' | 'open';

export type Environment = 'sandbox' | 'production';

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Base URL callers and browsers use to reach this service; defaults to http://localhost:PORT. */
  publicUrl: string;
  /**
   * The origins the connect widget is served from: publicUrl's, then AGENTLINK_WIDGET_ORIGINS. Only a page of one of
   * these may open the live view's WebSocket (server/connect/live/live-socket.ts).
   */
  widgetOrigins: string[];
  /** How the other API processes reach this one (AGENTLINK_INTERNAL_URL; default http://127.0.0.1:PORT). */
  internalUrl: string;
  dataDir: string;
  database: { type: 'sqlite'; file: string } | { type: 'postgres'; url: string };
  encryptionKey?: string;
  logLevel: string;
  bodyLimitBytes: number;
  linkTokenTtlSeconds: number;
  publicTokenTtlSeconds: number;
  sandboxHostSuffix: string;
  /**
   * `allow`: an organization's own sandbox providers may reach private networks too; `deny` (default): loopback
   * only. Metadata, link-local and this service's own ports stay refused either way (server/egress/egress-policy.ts).
   */
  sandboxPrivateNetwork: 'deny' | 'allow';
  trustProxy: boolean;
  /** Live sign-in (a browser streamed into the widget): at most maxSessions at once in this process, each ended after idleSeconds without input. */
  live: { maxSessions: number; idleSeconds: number };
  browser: { executablePath?: string; wsEndpoint?: string; upstreamCa?: string[] };
  /** OpenAI-compatible Chat Completions endpoint for the planner; absent = no model configured. */
  model?: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number };
  worker: {
    concurrency: number;
    leaseSeconds: number;
    /** embedded: workers claim rows from the database (default on SQLite); pg-boss: PostgreSQL job queue (default on PostgreSQL). */
    queue: 'embedded' | 'pg-boss';
    /** How often an idle worker looks for work that another process queued. */
    pollMs: number;
    /** Claims of one request before a lost worker makes it fail with WORKER_LOST. */
    maxAttempts: number;
    /**
     * Runs paused NEEDS_USER that this process keeps (each holds its browser context, not a worker slot), and how long
     * one waits for its user before it ends with USER_ACTION_EXPIRED.
     */
    maxWaitingRuns: number;
    userActionTtlSeconds: number;
    /** A finished run's context kept for the next run of the same connection (server/agent/worker/warm-contexts.ts). */
    warmContexts: { idleSeconds: number; max: number; mode: 'fresh' | 'reuse' };
  };
  /**
   * Connection health checks (server/agent/health/): the default interval between two scheduled checks of a connection
   * (0: no scheduler), the checks one process runs at once, and the time budget of one check.
   */
  healthCheck: { intervalSeconds: number; concurrency: number; budgetMs: number };
  /** Seconds a sandbox session of user_expiring lasts (the sandbox kit's SiteSessions). */
  sandboxExpiringSessionSeconds: number;
  /** Token bucket per organization and environment on the client API; null = no limit (either setting 0). */
  rateLimit: { perSecond: number; burst: number } | null;
  /**
   * OpenTelemetry traces, exported as OTLP/HTTP JSON, when OTEL_EXPORTER_OTLP_ENDPOINT (base URL, /v1/traces is
   * appended) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL) is set; absent: no tracing.
   */
  tracing?: { tracesUrl: string; serviceName: string };
  /** Bearer token GET /metrics requires; unset: metrics are served to loopback callers only. */
  metricsToken?: string;
  /** The operator's provider declarations (JSON, or YAML for .yaml/.yml), read at start-up (server/providers/providers-file.ts). */
  providersFile?: string;
  /** The running AgentLink that `agentlink mcp` forwards to, and the organization credentials it calls with. */
  remote: { baseUrl: string; clientId?: string; clientSecret?: string };
  /** Failed client authentications allowed per (client id, source address) and per source address in a window, before 429 AUTHENTICATION_THROTTLED. */
  authFailures: { perClientId: number; perAddress: number; windowSeconds: number };
  /**
   * Who may create a dashboard account (AGENTLINK_SIGNUP): `open` anyone, `invite` only through an invitation link a
   * member (or `agentlink org invite`) made, `closed` nobody. Default: closed in production, open otherwise.
   */
  signup: SignupMode;
}

export class ConfigError extends Error {}

/** The certificates of AGENTLINK_UPSTREAM_CA_FILE; a missing file or one without a certificate stops the start. */
function readUpstreamCa(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  AGENTLINK_UPSTREAM_CA_FILE: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) {
    throw new ConfigError(`Invalid configuration:\n  AGENTLINK_UPSTREAM_CA_FILE: ${file} holds no PEM certificate`);
  }
  return certificates;
}

/** The spec's rule: the signal-specific endpoint as it is, else the base endpoint with v1/traces appended. */
function tracesUrlOf(e: z.infer<typeof EnvSchema>): string | undefined {
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (e.OTEL_EXPORTER_OTLP_ENDPOINT) return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = EnvSchema.safeParse(withSecretFiles(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.AGENTLINK_DATA_DIR);
  const publicUrl = (e.AGENTLINK_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const sandboxHostSuffix = e.AGENTLINK_SANDBOX_HOST_SUFFIX.toLowerCase();
  // A sandbox site's page must never count as the widget (it is served by this same server, under its own host).
  const sandboxOrigin = e.AGENTLINK_WIDGET_ORIGINS.find((o) => {
    const host = new URL(o).hostname;
    return host === sandboxHostSuffix || host.endsWith(`.${sandboxHostSuffix}`);
  });
  if (sandboxOrigin) {
    throw new ConfigError(
      `Invalid configuration:\n  AGENTLINK_WIDGET_ORIGINS: "${sandboxOrigin}" is a sandbox site's origin (AGENTLINK_SANDBOX_HOST_SUFFIX), not the widget's`,
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    widgetOrigins: [...new Set([new URL(publicUrl).origin, ...e.AGENTLINK_WIDGET_ORIGINS])],
    internalUrl: (e.AGENTLINK_INTERNAL_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
    dataDir,
    database: e.DATABASE_URL ? { type: 'postgres', url: e.DATABASE_URL } : { type: 'sqlite', file: path.join(dataDir, 'agentlink.sqlite') },
    encryptionKey: e.AGENTLINK_ENCRYPTION_KEY,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.AGENTLINK_BODY_LIMIT_BYTES,
    linkTokenTtlSeconds: e.AGENTLINK_LINK_TOKEN_TTL_SECONDS,
    publicTokenTtlSeconds: e.AGENTLINK_PUBLIC_TOKEN_TTL_SECONDS,
    sandboxHostSuffix,
    sandboxPrivateNetwork: e.AGENTLINK_SANDBOX_PRIVATE_NETWORK,
    trustProxy: e.AGENTLINK_TRUST_PROXY,
    live: { maxSessions: e.AGENTLINK_LIVE_MAX_SESSIONS, idleSeconds: e.AGENTLINK_LIVE_IDLE_SECONDS },
    browser: {
      ...(e.AGENTLINK_CHROMIUM_PATH ? { executablePath: e.AGENTLINK_CHROMIUM_PATH } : {}),
      ...(e.BROWSER_WS_ENDPOINT ? { wsEndpoint: e.BROWSER_WS_ENDPOINT } : {}),
      ...(e.AGENTLINK_UPSTREAM_CA_FILE ? { upstreamCa: readUpstreamCa(e.AGENTLINK_UPSTREAM_CA_FILE) } : {}),
    },
    ...(e.AGENTLINK_MODEL_BASE_URL && e.AGENTLINK_MODEL
      ? {
          model: {
            baseUrl: e.AGENTLINK_MODEL_BASE_URL.replace(/\/+$/, ''),
            model: e.AGENTLINK_MODEL,
            ...(e.AGENTLINK_MODEL_API_KEY ? { apiKey: e.AGENTLINK_MODEL_API_KEY } : {}),
            timeoutMs: e.AGENTLINK_MODEL_TIMEOUT_MS,
          },
        }
      : {}),
    worker: {
      concurrency: e.AGENTLINK_WORKER_CONCURRENCY,
      leaseSeconds: e.AGENTLINK_LEASE_SECONDS,
      queue: e.AGENTLINK_QUEUE ?? (e.DATABASE_URL ? 'pg-boss' : 'embedded'),
      pollMs: e.AGENTLINK_WORKER_POLL_MS,
      maxAttempts: e.AGENTLINK_WORKER_MAX_ATTEMPTS,
      maxWaitingRuns: e.AGENTLINK_MAX_WAITING_RUNS,
      userActionTtlSeconds: e.AGENTLINK_USER_ACTION_TTL_SECONDS,
      warmContexts: {
        idleSeconds: e.AGENTLINK_WARM_CONTEXT_SECONDS,
        max: e.AGENTLINK_WARM_CONTEXTS_MAX,
        mode: e.AGENTLINK_WARM_CONTEXT_MODE,
      },
    },
    healthCheck: {
      intervalSeconds: e.AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS,
      concurrency: e.AGENTLINK_HEALTH_CHECK_CONCURRENCY,
      budgetMs: e.AGENTLINK_HEALTH_CHECK_BUDGET_MS,
    },
    sandboxExpiringSessionSeconds: e.AGENTLINK_SANDBOX_EXPIRING_SESSION_SECONDS,
    rateLimit:
      e.AGENTLINK_RATE_LIMIT_PER_SECOND > 0 && e.AGENTLINK_RATE_LIMIT_BURST > 0
        ? { perSecond: e.AGENTLINK_RATE_LIMIT_PER_SECOND, burst: e.AGENTLINK_RATE_LIMIT_BURST }
        : null,
    ...(tracesUrlOf(e) ? { tracing: { tracesUrl: tracesUrlOf(e)!, serviceName: e.OTEL_SERVICE_NAME ?? 'agentlink' } } : {}),
    ...(e.AGENTLINK_METRICS_TOKEN ? { metricsToken: e.AGENTLINK_METRICS_TOKEN } : {}),
    ...(e.AGENTLINK_PROVIDERS_FILE ? { providersFile: path.resolve(e.AGENTLINK_PROVIDERS_FILE) } : {}),
    remote: {
      baseUrl: (e.AGENTLINK_BASE_URL ?? publicUrl).replace(/\/+$/, ''),
      ...(e.AGENTLINK_CLIENT_ID ? { clientId: e.AGENTLINK_CLIENT_ID } : {}),
      ...(e.AGENTLINK_CLIENT_SECRET ? { clientSecret: e.AGENTLINK_CLIENT_SECRET } : {}),
    },
    authFailures: {
      perClientId: e.AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID,
      perAddress: e.AGENTLINK_AUTH_FAILURES_PER_ADDRESS,
      windowSeconds: e.AGENTLINK_AUTH_FAILURE_WINDOW_SECONDS,
    },
    signup: e.AGENTLINK_SIGNUP ?? (e.NODE_ENV === 'production' ? 'closed' : 'open'),
  };
}
