import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of one app instance, in a registry of its own (not prom-client's global one), so
 * that several apps in one process (tests) never share or collide on a metric. Names follow Prometheus's
 * conventions (agentlink_ prefix, base units, _seconds/_total); a histogram's _count is the number of events.
 * Labels only ever hold bounded values: route patterns (never raw URLs with ids), status codes and names,
 * provider slugs of the built-in and operator catalogue (see providerMetricLabel).
 */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Agent runs take seconds to minutes (the longest timeoutMs is 10 minutes). */
const AGENT_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];
/** A stage of a run takes from a millisecond (a claim) to tens of seconds (a planner's steps). */
const STAGE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

/**
 * A provider as a metric label: its slug (readable, stable across environments) when AgentLink or the operator declared
 * it, a fixed `organization` for any organization's own provider (each organization may declare dozens: by slug they
 * would grow the series without bound), `unknown` when the catalogue does not have it (any more).
 */
export function providerMetricLabel(provider: { slug: string; source?: 'built-in' | 'operator' | 'organization' } | undefined): string {
  if (!provider) return 'unknown';
  return provider.source === 'organization' ? 'organization' : provider.slug;
}

export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed';

export interface QueueStats {
  depth: number;
  oldestAgeSeconds: number;
}

export class AppMetrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly agent: Histogram<'status' | 'method' | 'provider'>;
  private readonly stages: Histogram<'stage'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly browsersLost: Counter;
  private processMetrics = false;

  constructor(
    sources: {
      /** Waiting agent requests, read from the database at each scrape; null when they cannot be read. */
      queue?: () => Promise<QueueStats | null>;
      /** Browser contexts open in this process. */
      browserContexts?: () => number;
      /** Of those, contexts kept warm between runs of a connection, held by no run now. */
      warmContexts?: () => number;
      /** Live sign-in views (a browser streamed into the connect widget) open in this process. */
      liveSessions?: () => number;
      /** Runs of this process waiting NEEDS_USER (each keeps its browser context, no worker slot). */
      waitingRuns?: () => number;
    } = {},
  ) {
    const registers = [this.registry];
    this.http = new Histogram({
      name: 'agentlink_http_request_duration_seconds',
      help: 'HTTP requests served, by method, route pattern and status code, and how long they took.',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.agent = new Histogram({
      name: 'agentlink_agent_request_duration_seconds',
      help: 'Agent requests run to a final status by a worker of this process, by status, method (playbook, replay, planner, none) and provider, and how long they ran.',
      labelNames: ['status', 'method', 'provider'],
      buckets: AGENT_BUCKETS,
      registers,
    });
    this.stages = new Histogram({
      name: 'agentlink_agent_run_stage_seconds',
      help: 'Where the runs of this process spend their time, by stage (wake, claim, device, context, session_restore, navigation, steps, session_seal, release, outcome_write, heartbeat summed); one observation per stage met by a run whose final status was stored.',
      labelNames: ['stage'],
      buckets: STAGE_BUCKETS,
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'agentlink_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered (2xx), retrying (failed; another attempt is scheduled), failed (failed for good). delivered + failed = deliveries ended.',
      labelNames: ['outcome'],
      registers,
    });
    this.browsersLost = new Counter({
      name: 'agentlink_browser_lost_total',
      help: 'Browsers of this process that went away without being closed (a crash, a kill, a lost remote browser); the next session starts a fresh one.',
      registers,
    });
    const queue = sources.queue;
    // One database read per scrape for both queue gauges: the registry collects all metrics at once, so the
    // second collect finds the first one's read still pending and shares it.
    let reading: Promise<QueueStats | null> | null = null;
    const readQueue = () =>
      (reading ??= (queue ? queue() : Promise.resolve(null)).finally(() => {
        reading = null;
      }));
    // Unknown (NaN), not zero, when the database cannot be read: it must not look like an empty queue.
    new Gauge({
      name: 'agentlink_queue_depth',
      help: 'Agent requests waiting for a worker (status PENDING).',
      registers,
      async collect() {
        this.set((await readQueue())?.depth ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'agentlink_queue_oldest_age_seconds',
      help: 'How long the oldest waiting agent request has waited (0 when none waits).',
      registers,
      async collect() {
        this.set((await readQueue())?.oldestAgeSeconds ?? Number.NaN);
      },
    });
    const contexts = sources.browserContexts;
    new Gauge({
      name: 'agentlink_browser_contexts_open',
      help: 'Browser contexts open in this process (one per agent run or connect-flow sign-in).',
      registers,
      collect() {
        this.set(contexts ? contexts() : 0);
      },
    });
    const warm = sources.warmContexts;
    new Gauge({
      name: 'agentlink_browser_contexts_warm',
      help: 'Of the open browser contexts, those kept warm for the next run of their connection (no run holds them; AGENTLINK_WARM_CONTEXT_SECONDS).',
      registers,
      collect() {
        this.set(warm ? warm() : 0);
      },
    });
    const live = sources.liveSessions;
    new Gauge({
      name: 'agentlink_live_sessions_open',
      help: 'Live sign-in views open in this process (bounded by AGENTLINK_LIVE_MAX_SESSIONS).',
      registers,
      collect() {
        this.set(live ? live() : 0);
      },
    });
    const waiting = sources.waitingRuns;
    new Gauge({
      name: 'agentlink_agent_requests_waiting_for_user',
      help: 'Agent requests of this process waiting NEEDS_USER, each keeping its browser (bounded by AGENTLINK_MAX_WAITING_RUNS).',
      registers,
      collect() {
        this.set(waiting ? waiting() : 0);
      },
    });
  }

  /** Node.js process metrics (CPU, memory, event loop lag, handles) as well: for long-running processes, not tests. */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'agentlink_' });
  }

  observeHttp(labels: { method: string; route: string; status: number }, seconds: number): void {
    this.http.observe({ method: labels.method, route: labels.route, status: String(labels.status) }, seconds);
  }

  observeAgentRequest(labels: { status: string; method: string | null; provider: string }, seconds: number): void {
    this.agent.observe({ status: labels.status, method: labels.method?.toLowerCase() ?? 'none', provider: labels.provider }, seconds);
  }

  /** The stages of one run, in milliseconds (server/agent/run/stages.ts). */
  observeRunStages(stages: Partial<Record<string, number>>): void {
    for (const [stage, ms] of Object.entries(stages)) if (ms !== undefined) this.stages.observe({ stage }, ms / 1000);
  }

  countWebhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  countBrowserLost(): void {
    this.browsersLost.inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
