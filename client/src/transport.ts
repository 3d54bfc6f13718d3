import {
  AgentLinkAbortError,
  AgentLinkConnectionError,
  type AgentLinkError,
  AgentLinkResponseError,
  AgentLinkTimeoutError,
  apiError,
} from './errors';
import type { ErrorEnvelope } from './generated/api';
import { isRetryableStatus, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry';

/** Per-call options, the second argument of every client method. */
export interface RequestOptions {
  /** Time for each attempt, in ms (default the client's timeoutMs). */
  timeoutMs?: number;
  /** Retries after the first attempt (default the client's maxRetries; 0 disables them). */
  maxRetries?: number;
  /** For POST: the Idempotency-Key to send (default a random UUID, made once and reused by every retry of the call). */
  idempotencyKey?: string;
  /** Aborts the call, retries included. */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

export interface TransportConfig {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  retry: RetryPolicy;
  fetch: typeof fetch;
  /** Waits between attempts (tests make it instant). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export interface HttpRequest {
  method: string;
  /** The path with its parameters filled in, e.g. /api/connections/conn_1. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface HttpResponse<T> {
  data: T;
  status: number;
  headers: Headers;
  requestId: string | null;
}

const SNIPPET_MAX = 200;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A random UUID v4; from getRandomValues where randomUUID is missing (browsers outside secure contexts). */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

type Attempt<T> =
  { ok: true; response: HttpResponse<T> } | { ok: false; error: AgentLinkError; retryable: boolean; retryAfterMs: number | null };

/**
 * One call, fetch only (Node 20+, browsers, edge runtimes): a timeout per attempt, retries with backoff on 429, 5xx,
 * IDEMPOTENCY_REQUEST_IN_PROGRESS and network failures, and for POST one Idempotency-Key for all the attempts, so a
 * retry of a request that did reach the server answers its first response instead of doing it twice.
 */
export async function send<T>(config: TransportConfig, req: HttpRequest, options: RequestOptions = {}): Promise<HttpResponse<T>> {
  const url = `${config.baseUrl}${req.path}${queryString(req.query)}`;
  const headers: Record<string, string> = { accept: 'application/json', ...config.headers, ...options.headers };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  if (req.method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? newIdempotencyKey();
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const policy = { ...config.retry, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) };
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;

  for (let retry = 0; ; retry++) {
    const attempt = await attemptOnce<T>(config, { url, method: req.method, headers, body }, timeoutMs, options.signal);
    if (attempt.ok) return attempt.response;
    const delay = attempt.retryable ? retryDelayMs(policy, retry, attempt.retryAfterMs, config.random) : null;
    if (delay === null) throw attempt.error;
    try {
      await config.sleep(delay, options.signal);
    } catch {
      throw new AgentLinkAbortError('The call was aborted.', { cause: options.signal?.reason });
    }
  }
}

async function attemptOnce<T>(
  config: TransportConfig,
  req: { url: string; method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt<T>> {
  if (signal?.aborted) throw new AgentLinkAbortError('The call was aborted.', { cause: signal.reason });
  // One controller for both the caller's signal and the timeout (AbortSignal.any is missing from some runtimes).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let res: Response;
    try {
      res = await config.fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: controller.signal });
    } catch (err) {
      if (signal?.aborted) throw new AgentLinkAbortError('The call was aborted.', { cause: signal.reason });
      const error = timedOut
        ? new AgentLinkTimeoutError(`No answer from ${req.method} ${req.url} within ${timeoutMs} ms.`, { cause: err })
        : new AgentLinkConnectionError(`Could not reach AgentLink at ${req.url}: ${describe(err)}`, { cause: err });
      return { ok: false, error, retryable: true, retryAfterMs: null };
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw new AgentLinkAbortError('The call was aborted.', { cause: signal.reason });
      const error = timedOut
        ? new AgentLinkTimeoutError(`The answer of ${req.method} ${req.url} did not arrive within ${timeoutMs} ms.`, { cause: err })
        : new AgentLinkConnectionError(`The answer of ${req.method} ${req.url} broke off: ${describe(err)}`, { cause: err });
      return { ok: false, error, retryable: true, retryAfterMs: null };
    }
    return interpret<T>(res, text, req);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function interpret<T>(res: Response, text: string, req: { url: string; method: string }): Attempt<T> {
  const requestId = res.headers.get('x-request-id');
  const contentType = res.headers.get('content-type');
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  let json: unknown;
  let parsed = false;
  if (contentType && /^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    try {
      json = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  if (!parsed) {
    const snippet = text.slice(0, SNIPPET_MAX);
    const error = new AgentLinkResponseError(
      `${req.method} ${req.url} answered HTTP ${res.status} with ${contentType ?? 'no content type'}, not AgentLink's JSON` +
        ` (${JSON.stringify(snippet.slice(0, 60))}…). Is baseUrl the address of AgentLink (without /api)?`,
      res.status,
      contentType,
      snippet,
      requestId,
    );
    // A gateway's 502/503 page is still worth another attempt; a 200 HTML page is not.
    return { ok: false, error, retryable: isRetryableStatus(res.status), retryAfterMs };
  }
  if (res.status >= 200 && res.status < 300)
    return { ok: true, response: { data: json as T, status: res.status, headers: res.headers, requestId } };
  if (!isEnvelope(json)) {
    const snippet = text.slice(0, SNIPPET_MAX);
    const error = new AgentLinkResponseError(
      `${req.method} ${req.url} answered HTTP ${res.status} with JSON that is not AgentLink's error envelope.`,
      res.status,
      contentType,
      snippet,
      requestId,
    );
    return { ok: false, error, retryable: isRetryableStatus(res.status), retryAfterMs };
  }
  const error = apiError({ status: res.status, envelope: json.error, headers: res.headers });
  const retryable = isRetryableStatus(res.status) || json.error.code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS';
  return { ok: false, error, retryable, retryAfterMs };
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}
