import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

import { STANDARD_WEBHOOK_HEADERS, WEBHOOK_HEADERS, WEBHOOK_RETRY_SCHEDULE_SECONDS } from '../../../contract/webhook-schemas';
import type { AppConfig } from '../../config';
import { isNonPublicHost } from '../../egress/addresses';
import { publicOnly, resolveChecked } from '../../egress/resolve';
import type { Store, WebhookDeliveryAttemptRecord, WebhookDeliveryRecord } from '../../store';
import type { Clock } from '../clock';
import type { EventPayloadSeal } from './event-payload';
import { standardWebhookSignature, webhookSignatureHeader } from './signature';
import type { WebhookEndpointService } from './webhook-endpoints.service';
import { targetsMustBePublic } from './webhook-url.policy';

/**
 * Delivers webhook events: at least once, from the persisted `webhook_deliveries` rows. A dispatcher claims a due
 * delivery with one conditional UPDATE (PENDING and due → DELIVERING under its lease; a DELIVERING row whose lease ran
 * out is due again), POSTs the stored body signed with the endpoint's secret, and records the attempt. A failed attempt
 * (connection error, timeout, anything but 2xx) is retried after WEBHOOK_RETRY_SCHEDULE_SECONDS[attempt - 1] plus up to
 * 10% jitter; after the last retry the delivery is FAILED. Runs in the worker role and in `serve`'s embedded mode;
 * any number of dispatchers may share one database.
 */
export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  endpoints: WebhookEndpointService;
  /** Opens event bodies stored sealed (event-payload.ts); without it, bodies are sent as stored. */
  payloads?: EventPayloadSeal;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** How long a claimed delivery stays ours (default timeout + 30 s); after that another dispatcher retries it. */
  leaseMs?: number;
  /** Background polling period (default 1 s). */
  pollMs?: number;
  /** Deliveries in flight at once (default 16). */
  maxInFlight?: number;
  /** 0 ≤ x < 1; scales the jitter (default Math.random). */
  random?: () => number;
  onError?: (err: unknown, context: Record<string, unknown>) => void;
  /** Told how each attempt ended (metrics): delivered, retrying (another attempt is scheduled) or failed (for good). */
  onAttempt?: (outcome: 'delivered' | 'retrying' | 'failed') => void;
  /** The deployment's NODE_ENV: with `production`, every endpoint (not only production-environment ones) must resolve to public addresses. */
  nodeEnv?: AppConfig['nodeEnv'];
  /** Resolves a host name to all its addresses (default dns.promises.lookup with all: true); injectable for tests. */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

/** An attempt refused before any connection: the endpoint's host resolved to an address it may not reach. */
class AddressNotAllowedError extends Error {}

const USER_AGENT = 'AgentLink-Webhooks/1';
const ERROR_MAX = 500;

export class WebhookDispatcher {
  readonly owner = `whd_${randomBytes(8).toString('hex')}`;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly maxInFlight: number;
  private readonly random: () => number;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<unknown> | undefined;
  private wakeAgain = false;

  constructor(private readonly opts: DispatcherOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.leaseMs = opts.leaseMs ?? this.timeoutMs + 30_000;
    this.pollMs = opts.pollMs ?? 1000;
    this.maxInFlight = opts.maxInFlight ?? 16;
    this.random = opts.random ?? Math.random;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the background loop: polls every pollMs, and at once when wake() is called. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref?.();
    this.wake();
  }

  /** Stops claiming and waits for the attempts in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.claiming?.catch(() => undefined);
    await Promise.all([...this.inFlight]);
  }

  /** Looks for due deliveries now, without waiting for their attempts (background loop only). */
  wake(): void {
    if (!this.timer) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.claimDue()
      .catch((err) => this.opts.onError?.(err, { phase: 'claim' }))
      .finally(() => {
        this.claiming = undefined;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake();
        }
      });
  }

  /** One round: claims what is due now and waits for those attempts. Returns how many attempts were made. */
  async tick(): Promise<number> {
    const started = await this.claimDue();
    await Promise.all(started);
    return started.length;
  }

  /** Claims due deliveries (up to the free capacity) and starts an attempt for each; returns the attempts. */
  private async claimDue(): Promise<Promise<void>[]> {
    const repo = this.opts.store.repos.webhookDeliveries;
    const capacity = this.maxInFlight - this.inFlight.size;
    if (capacity <= 0) return [];
    const now = this.opts.clock.now();
    const started: Promise<void>[] = [];
    for (const id of await repo.dueIds(now, capacity)) {
      if (!(await repo.claim(id, this.owner, now, new Date(now.getTime() + this.leaseMs)))) continue;
      const attempt = this.attempt(id)
        .catch((err) => this.opts.onError?.(err, { deliveryId: id }))
        .finally(() => this.inFlight.delete(attempt));
      this.inFlight.add(attempt);
      started.push(attempt);
    }
    return started;
  }

  /** One attempt of a delivery this dispatcher holds; every path ends in one conditional write. */
  private async attempt(id: string): Promise<void> {
    const { store, clock, endpoints } = this.opts;
    const repos = store.repos;
    const delivery = await repos.webhookDeliveries.findById(id);
    if (!delivery || delivery.leaseOwner !== this.owner || delivery.status !== 'DELIVERING') return;
    const log = [...(delivery.attemptLog ?? [])];
    // Attempts whose dispatcher stopped before recording them (their lease ran out).
    while (log.length < delivery.attempts - 1) {
      log.push({
        attempt: log.length + 1,
        at: delivery.updatedAt.toISOString(),
        responseStatus: null,
        error: 'the dispatcher stopped during this attempt',
        durationMs: 0,
      });
    }
    const endpoint = await repos.webhookEndpoints.findById(delivery.endpointId);
    const event = await repos.webhookEvents.findById(delivery.eventId);
    const startedAt = clock.now();
    if (!endpoint || !event || !endpoint.enabled) {
      const reason = !endpoint || !event ? 'the endpoint was deleted' : 'the endpoint is disabled';
      log.push({ attempt: delivery.attempts, at: startedAt.toISOString(), responseStatus: null, error: reason, durationMs: 0 });
      await this.record(delivery, log, { ok: false, final: true, responseStatus: null, error: reason });
      return;
    }
    let body: string;
    try {
      body = this.opts.payloads ? this.opts.payloads.open(event) : event.payload;
    } catch {
      // Not a passing outage: the key that sealed the body is gone, so no retry can send it.
      const reason = 'the event body could not be opened (its encryption key is no longer configured)';
      log.push({ attempt: delivery.attempts, at: startedAt.toISOString(), responseStatus: null, error: reason, durationMs: 0 });
      await this.record(delivery, log, { ok: false, final: true, responseStatus: null, error: reason });
      return;
    }
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const t0 = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    // An endpoint that resolves to a non-public address is not a passing outage: the delivery fails at once, no retries.
    let refused = false;
    try {
      const url = new URL(endpoint.url);
      // Where the rules forbid local and private targets, the checked address is the one we connect to (no DNS rebind).
      const pinned = targetsMustBePublic(endpoint.environment, this.opts.nodeEnv ?? 'development')
        ? await this.publicAddress(url.hostname)
        : undefined;
      const secret = endpoints.openSecret(endpoint);
      const status = await postOnce(url, body, this.timeoutMs, pinned, {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [WEBHOOK_HEADERS.signature]: webhookSignatureHeader(secret, timestamp, body),
        [WEBHOOK_HEADERS.eventId]: event.id,
        [WEBHOOK_HEADERS.eventType]: event.type,
        // The event id is the message id: the same on every attempt, so receivers deduplicate retries on it.
        [STANDARD_WEBHOOK_HEADERS.id]: event.id,
        [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [STANDARD_WEBHOOK_HEADERS.signature]: standardWebhookSignature(secret, event.id, timestamp, body),
      });
      responseStatus = status;
      if (status < 200 || status > 299) error = `the endpoint answered HTTP ${status}`;
    } catch (err) {
      refused = err instanceof AddressNotAllowedError;
      error = refused ? (err as Error).message.slice(0, ERROR_MAX) : describeFetchError(err, this.timeoutMs);
    }
    const durationMs = Math.round(performance.now() - t0);
    log.push({ attempt: delivery.attempts, at: startedAt.toISOString(), responseStatus, error, durationMs });
    await this.record(delivery, log, { ok: error === null, final: refused, responseStatus, error });
  }

  /** Resolves the host and returns one address to connect to; throws AddressNotAllowedError when any is not public unicast. */
  private async publicAddress(hostname: string): Promise<{ address: string; family: number }> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const refuse = (why: string) => new AddressNotAllowedError(`address not allowed: ${host} ${why}`);
    if (isNonPublicHost(host)) throw refuse('is a local or private host');
    // The egress module's rule: one lookup, every address checked, the checked one returned to connect to.
    const resolved = await resolveChecked(host, publicOnly, this.opts.resolve ?? defaultResolve);
    if (resolved.ok) return { address: resolved.address, family: resolved.family };
    if (resolved.unresolved) throw new Error(resolved.reason);
    throw new AddressNotAllowedError(`address not allowed: ${resolved.reason}`);
  }

  private async record(
    delivery: WebhookDeliveryRecord,
    log: WebhookDeliveryAttemptRecord[],
    outcome: { ok: boolean; final: boolean; responseStatus: number | null; error: string | null },
  ) {
    const now = this.opts.clock.now();
    const retryIndex = delivery.attempts - 1;
    const retry = !outcome.ok && !outcome.final && retryIndex < WEBHOOK_RETRY_SCHEDULE_SECONDS.length;
    const delayMs = retry ? WEBHOOK_RETRY_SCHEDULE_SECONDS[retryIndex] * 1000 * (1 + 0.1 * this.random()) : 0;
    const status = outcome.ok ? 'SUCCEEDED' : retry ? 'PENDING' : 'FAILED';
    const written = await this.opts.store.repos.webhookDeliveries.finishAttempt(delivery.id, this.owner, {
      status,
      nextAttemptAt: retry ? new Date(now.getTime() + Math.round(delayMs)) : null,
      lastResponseStatus: outcome.responseStatus,
      lastError: outcome.error,
      attemptLog: log,
      updatedAt: now,
      completedAt: retry ? null : now,
    });
    // Counted once, by the dispatcher whose write won (a lost lease means another one recorded the attempt).
    if (written) this.opts.onAttempt?.(status === 'SUCCEEDED' ? 'delivered' : status === 'PENDING' ? 'retrying' : 'failed');
  }
}

const defaultResolve = (hostname: string) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * One POST, no redirects followed, no connection reuse; resolves with the status once the response head arrives.
 * With `pinned`, the socket connects to that address whatever DNS says now (TLS still verifies the host name).
 */
function postOnce(
  url: URL,
  body: string,
  timeoutMs: number,
  pinned: { address: string; family: number } | undefined,
  headers: Record<string, string>,
): Promise<number> {
  const lookup: LookupFunction | undefined = pinned
    ? (_host, options, callback) => {
        if (options?.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
        else callback(null, pinned.address, pinned.family);
      }
    : undefined;
  return new Promise<number>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      ...(lookup ? { lookup } : {}),
    });
    const timer = setTimeout(() => {
      const err = new Error(`no answer within ${timeoutMs} ms`);
      err.name = 'TimeoutError';
      req.destroy(err);
    }, timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      res.on('error', () => undefined);
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.code;
  return `could not reach the endpoint: ${cause ?? e?.message ?? String(err)}`.slice(0, ERROR_MAX);
}
