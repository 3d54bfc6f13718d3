import { Client } from 'pg';
import type { Logger } from 'pino';

/** The PostgreSQL notification channel every AgentLink process on one database shares. */
export const WAKE_CHANNEL = 'agentlink_agent_requests';
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * Work queued by one process reaches idle workers in the others at once: the sender runs `NOTIFY` (through the
 * connection pool it already has) after a job is in the queue, and every worker holds one dedicated connection
 * that `LISTEN`s and wakes its claim loop. The poll stays as the fallback: a notification is lost when no
 * listener is connected at that moment (PostgreSQL does not store them), and a lost one only costs a poll.
 *
 * One connection per worker process, beside the store's and pg-boss's pools (README, "PostgreSQL connections").
 */
export class PgWakeChannel {
  private client: Client | null = null;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly connectionString: string,
    private readonly logger?: Logger,
  ) {}

  /** Calls `fn` whenever any process says work was queued; returns the unsubscribe. Connects on first use. */
  listen(fn: () => void): () => void {
    this.listeners.add(fn);
    if (!this.client && !this.retryTimer) void this.connect();
    return () => this.listeners.delete(fn);
  }

  /** True while the listening connection is up (tests and /readyz-style checks). */
  get listening(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.connectionString, application_name: 'agentlink-wake' });
    client.on('notification', (msg) => {
      if (msg.channel !== WAKE_CHANNEL) return;
      for (const fn of this.listeners) fn();
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger?.warn({ err: err?.message }, 'queue wake-up connection lost; polling until it is back');
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
    } catch (err) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      if (!this.closed) {
        this.logger?.warn({ err: (err as Error).message }, 'queue wake-up connection failed; polling until it is back');
        this.scheduleReconnect();
      }
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_MIN_MS;
    // Whatever was sent while nobody listened is found by one claim pass now.
    for (const fn of this.listeners) fn();
  }

  private scheduleReconnect() {
    const wait = this.retryMs;
    this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}

/** The sending side: one `NOTIFY` on a connection the caller already has (no payload: waking is all it says). */
export const WAKE_SQL = `SELECT pg_notify('${WAKE_CHANNEL}', '')`;

/** How long the wakes of a burst are gathered into one NOTIFY (at most this much later than a lone one). */
export const WAKE_GATHER_MS = 20;

/**
 * The sender's NOTIFY, at most one per `gatherMs`: the first wake of a quiet spell goes out at once (an idle worker
 * starts as soon as alone), the wakes that follow it within `gatherMs` are said by one more NOTIFY as that time ends,
 * always after every job they announce was in the queue. A burst of requests costs one statement per `gatherMs`, not
 * one per request, and each listener wakes as often; a worker slot that fetched too early for a job sees the next one.
 */
export function gatheredWake(send: () => void, gatherMs = WAKE_GATHER_MS): { wake(): void; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let owed = false;
  const close = () => {
    timer = null;
    if (!owed) return;
    owed = false;
    send();
    timer = setTimeout(close, gatherMs);
    timer.unref();
  };
  return {
    wake() {
      if (timer) {
        owed = true;
        return;
      }
      send();
      timer = setTimeout(close, gatherMs);
      timer.unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      if (owed) send();
      owed = false;
    },
  };
}
