import http from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  AgentLinkAbortError,
  AgentLinkResponseError,
  AgentLinkTimeoutError,
  createAgentLinkClient,
  InternalServerError,
  InvalidRequestError,
  RateLimitError,
} from '@agentlink/client';

import { DEFAULT_RETRY_POLICY, retryDelayMs } from '../../client/src/retry';

/**
 * Retries, timeouts and Idempotency-Key against a tiny flaky server on loopback whose answers each test scripts:
 * one step per attempt (a status with AgentLink's envelope, a hang, a dropped connection, an HTML page).
 */
type Step = { status: number; code?: string; headers?: Record<string, string> } | { hangMs: number } | { drop: true } | { html: number };

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

class FlakyServer {
  readonly seen: Seen[] = [];
  steps: Step[] = [];
  private server!: http.Server;
  baseUrl = '';

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          at: performance.now(),
        });
        const step = this.steps.shift() ?? { status: 200 };
        const requestId = `req_${String(this.seen.length).padStart(24, '0')}`;
        if ('drop' in step) return req.socket.destroy();
        if ('hangMs' in step) {
          const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}'), step.hangMs);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        if ('html' in step) return res.writeHead(step.html, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
        const headers = { 'content-type': 'application/json', 'x-request-id': requestId, ...step.headers };
        if (step.status < 400) return res.writeHead(step.status, headers).end(JSON.stringify({ ok: true, attempt: this.seen.length }));
        const type =
          step.status === 429 ? 'RATE_LIMITED' : step.status >= 500 ? 'API_ERROR' : step.status === 409 ? 'CONFLICT' : 'INVALID_REQUEST';
        res
          .writeHead(step.status, headers)
          .end(JSON.stringify({ error: { type, code: step.code ?? 'INTERNAL_ERROR', message: 'scripted', requestId } }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  gaps(): number[] {
    return this.seen.slice(1).map((s, i) => s.at - this.seen[i].at);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

it('draws each backoff from [0, min(maxDelayMs, baseDelayMs * 2^n)], honours Retry-After, and stops at maxRetries', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 6 };
  for (let n = 0; n < 6; n++) {
    const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
    expect(retryDelayMs(policy, n, null, () => 0)).toBe(0);
    expect(retryDelayMs(policy, n, null, () => 1)).toBe(cap);
    for (let i = 0; i < 50; i++) expect(retryDelayMs(policy, n, null, Math.random)).toBeLessThanOrEqual(cap);
  }
  expect(retryDelayMs(policy, 5, null, () => 1)).toBe(8_000);
  expect(retryDelayMs(policy, 0, 12_000, () => 0)).toBe(12_000);
  expect(retryDelayMs(policy, 0, 61_000, () => 0)).toBeNull();
  expect(retryDelayMs(policy, 6, null, () => 1)).toBeNull();
});

describe('@agentlink/client: retries, backoff, timeouts and Idempotency-Key', () => {
  let flaky: FlakyServer;
  beforeEach(async () => {
    flaky = new FlakyServer();
    await flaky.start();
  });
  afterEach(() => flaky.stop());

  const client = (opts: { maxRetries?: number; timeoutMs?: number } = {}) =>
    createAgentLinkClient({ baseUrl: flaky.baseUrl, clientId: 'cid', clientSecret: 'secret', ...opts });
  // The flaky server answers { ok, attempt } where the API would answer its own bodies: the client does not care.
  const body = { clientUserId: 'u' };

  it('retries 5xx with exponential backoff and jitter until an attempt succeeds', async () => {
    flaky.steps = [{ status: 500 }, { status: 503 }];
    // Full jitter draws each wait from [0, 500 ms * 2^n]: at the top of the draw the waits are the caps themselves, so
    // the gaps the server sees are at least 500 and 1000 ms (a lower bound holds on a busy machine; an upper one would
    // measure the machine: the cap itself is retryDelayMs's, a pure function).
    const random = jest.spyOn(Math, 'random').mockReturnValue(1);
    try {
      const res = (await client().link.createLinkToken({ body })) as unknown as { attempt: number };
      expect(res.attempt).toBe(3);
    } finally {
      random.mockRestore();
    }
    expect(flaky.seen).toHaveLength(3);
    const [first, second] = flaky.gaps();
    expect(first).toBeGreaterThanOrEqual(490);
    expect(second).toBeGreaterThanOrEqual(990);
  });

  it('reuses one Idempotency-Key for every attempt of a POST, and makes a new one per call', async () => {
    flaky.steps = [{ status: 502, code: 'INTERNAL_ERROR' }, { drop: true }, { status: 200 }, { status: 200 }];
    await client().link.createLinkToken({ body });
    await client().link.createLinkToken({ body });
    const keys = flaky.seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
    expect(flaky.seen.every((s) => s.body === JSON.stringify(body))).toBe(true);
  });

  it('sends the caller’s own Idempotency-Key, and none on GET', async () => {
    await client().link.createLinkToken({ body }, { idempotencyKey: 'order-42' });
    await client().providers.listProviders();
    expect(flaky.seen.map((s) => s.headers['idempotency-key'])).toEqual(['order-42', undefined]);
    expect(flaky.seen[0].headers).toMatchObject({ 'x-client-id': 'cid', 'x-client-secret': 'secret', 'content-type': 'application/json' });
  });

  it('honours Retry-After on 429: the next attempt waits at least that long', async () => {
    flaky.steps = [{ status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '1' } }, { status: 200 }];
    await client().providers.listProviders();
    expect(flaky.seen).toHaveLength(2);
    expect(flaky.gaps()[0]).toBeGreaterThanOrEqual(990);
  });

  it('does not wait for a Retry-After longer than a minute: throws RateLimitError with it', async () => {
    flaky.steps = [{ status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '120' } }];
    const err = await client()
      .providers.listProviders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 120, requestId: 'req_000000000000000000000001' });
    expect(flaky.seen).toHaveLength(1);
  });

  it('retries IDEMPOTENCY_REQUEST_IN_PROGRESS (409) but no other 4xx', async () => {
    flaky.steps = [{ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' }, { status: 200 }];
    await client().link.createLinkToken({ body });
    expect(flaky.seen).toHaveLength(2);
    flaky.steps = [{ status: 400, code: 'INVALID_FIELD' }];
    await expect(client().link.createLinkToken({ body })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(flaky.seen).toHaveLength(3);
  });

  it('gives up after maxRetries with the last error (InternalServerError), and maxRetries 0 makes one attempt', async () => {
    flaky.steps = [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }];
    await expect(client({ maxRetries: 1 }).providers.listProviders()).rejects.toMatchObject({
      constructor: InternalServerError,
      requestId: 'req_000000000000000000000002',
    });
    expect(flaky.seen).toHaveLength(2);
    await expect(client({ maxRetries: 0 }).providers.listProviders()).rejects.toBeInstanceOf(InternalServerError);
    expect(flaky.seen).toHaveLength(3);
  });

  it('times out each attempt (AbortSignal) and retries it; AgentLinkTimeoutError when none answers in time', async () => {
    // The first attempt would hang 20 s: answering before that shows it was cut at its timeout and retried. The timeout
    // is far above what the second attempt takes on a loaded machine (its own timeout is not what this part checks).
    flaky.steps = [{ hangMs: 20_000 }, { status: 200 }];
    const started = performance.now();
    await client({ timeoutMs: 5_000 }).providers.listProviders();
    expect(flaky.seen).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(20_000);

    flaky.steps = [{ hangMs: 5_000 }, { hangMs: 5_000 }];
    const err = await client({ timeoutMs: 200, maxRetries: 1 })
      .providers.listProviders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLinkTimeoutError);
    expect((err as Error).message).toMatch(/within 200 ms/);
  });

  it('a gateway’s HTML 502 is retried, and reported as AgentLinkResponseError when it persists', async () => {
    flaky.steps = [{ html: 502 }, { status: 200 }];
    await client().providers.listProviders();
    expect(flaky.seen).toHaveLength(2);
    flaky.steps = [{ html: 502 }, { html: 502 }];
    const err = await client({ maxRetries: 1 })
      .providers.listProviders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLinkResponseError);
    expect(err).toMatchObject({ status: 502, contentType: 'text/html' });
  });

  it('stops at once, retries included, when the caller aborts', async () => {
    flaky.steps = [{ status: 503, headers: { 'retry-after': '25' } }];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const err = await client()
      .providers.listProviders(undefined, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLinkAbortError);
    expect(performance.now() - started).toBeLessThan(20_000); // not the 25 s the server asked to wait
    expect(flaky.seen).toHaveLength(1);
  });
});
