import fs from 'node:fs';
import path from 'node:path';

import type { z } from 'zod';

import { ConfigError, EnvSchema, withSecretFiles } from './config-env';

export { CONFIG_VARIABLES, ConfigError, SECRET_VARIABLES, withSecretFiles } from './config-env';

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
  /**
   * Live sign-in (a browser streamed into the widget): at most maxSessions at once in this process, each ended after
   * idleSeconds without input; a sign-in by recipe waits loginStepSeconds after each step for a page it knows.
   */
  live: { maxSessions: number; idleSeconds: number; loginStepSeconds: number };
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
    live: {
      maxSessions: e.AGENTLINK_LIVE_MAX_SESSIONS,
      idleSeconds: e.AGENTLINK_LIVE_IDLE_SECONDS,
      loginStepSeconds: e.AGENTLINK_LOGIN_STEP_SECONDS,
    },
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
