import type { UserAction } from '../../../contract/schemas';
import type { WebhookEventType } from '../../../contract/webhook-schemas';
import type {
  AgentRequestRecord,
  ConnectionRecord,
  Owner,
  Store,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventRecord,
} from '../../store';
import type { Clock } from '../clock';
import { newId } from '../ids';
import { type LinkSessionOutcome, presentLinkSessionFinished, sessionFinishedEventId } from '../link-completion';
import { presentAgentRequest, presentConnection } from '../presenters';
import type { EventPayloadSeal } from './event-payload';

/**
 * Emitting an event only writes rows: one `webhook_events` row (with the exact body every delivery sends) and one
 * PENDING `webhook_deliveries` row per enabled endpoint of the owner that subscribed to the type. It never does HTTP;
 * the dispatcher (dispatcher.ts) delivers. The object is the same shape the GET endpoint returns (the presenters).
 */
export interface EmitOptions {
  /**
   * The event's id, when the event must exist at most once whatever calls emit (two processes finishing one link
   * session): a second emit with the same id writes nothing. Default: a fresh id.
   */
  eventId?: string;
  /** The body carries a secret: stored sealed (event-payload.ts), opened by the dispatcher. */
  sealed?: boolean;
  /** The owner's enabled endpoints, when the caller read them already (one statement less). */
  endpoints?: WebhookEndpointRecord[];
}

export class WebhookEvents {
  private readonly background = new Set<Promise<unknown>>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onError: (err: unknown, context: Record<string, unknown>) => void = () => undefined,
    private readonly payloads?: EventPayloadSeal,
  ) {}

  /** Called after deliveries were queued (an in-process nudge for a local dispatcher; others poll). */
  onQueued(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Persists the event and its deliveries, then returns; null when no endpoint wants it (or opts.eventId exists already). */
  async emit(owner: Owner, type: WebhookEventType, object: unknown, opts: EmitOptions = {}): Promise<WebhookEventRecord | null> {
    const repos = this.store.repos;
    if (opts.sealed && !this.payloads) throw new Error(`a sealed ${type} event needs the payload seal (EventPayloadSeal)`);
    const endpoints = (opts.endpoints ?? (await repos.webhookEndpoints.listEnabled(owner))).filter((e) => e.events.includes(type));
    if (endpoints.length === 0) return null;
    if (opts.eventId && (await repos.webhookEvents.findById(opts.eventId))) return null;
    const now = this.clock.now();
    const id = opts.eventId ?? newId('evt');
    const body = JSON.stringify({ eventId: id, type, createdAt: now.toISOString(), environment: owner.environment, object });
    const event: WebhookEventRecord = {
      id,
      organizationId: owner.organizationId,
      environment: owner.environment,
      type,
      payload: opts.sealed ? this.payloads!.seal(id, body) : body,
      createdAt: now,
    };
    try {
      await repos.webhookEvents.insert(event);
    } catch (err) {
      // The same event id written meanwhile by another process: it owns the deliveries.
      if (opts.eventId && (await repos.webhookEvents.findById(opts.eventId))) return null;
      throw err;
    }
    await repos.webhookDeliveries.insertMany(endpoints.map((e) => newDelivery(e.id, event, now)));
    for (const fn of this.listeners) fn();
    return event;
  }

  /** A connection event; failures are reported, never thrown (the state change already happened). */
  async connectionEvent(connection: ConnectionRecord, type: Extract<WebhookEventType, `CONNECTION.${string}`>): Promise<void> {
    try {
      await this.emit(connection, type, presentConnection(connection));
    } catch (err) {
      this.onError(err, { type, connectionId: connection.id });
    }
  }

  /**
   * AGENT_REQUEST.COMPLETED or .FAILED for a request that reached that final status (other statuses emit nothing).
   * Given the request's owner, its endpoints are read first and the request only when one of them wants the event:
   * most runs of most organizations have no listener, and then the run's end costs one statement, not two.
   */
  async agentRequestFinished(requestId: string, owner?: Owner): Promise<void> {
    try {
      const endpoints = owner ? await this.store.repos.webhookEndpoints.listEnabled(owner) : undefined;
      if (endpoints && !endpoints.some((e) => FINISHED_TYPES.some((t) => e.events.includes(t)))) return;
      const record = await this.store.repos.agentRequests.findById(requestId);
      if (!record) return;
      const type = record.status === 'COMPLETED' ? 'AGENT_REQUEST.COMPLETED' : record.status === 'FAILED' ? 'AGENT_REQUEST.FAILED' : null;
      const same = owner?.organizationId === record.organizationId && owner.environment === record.environment;
      if (type) await this.emit(record, type, presentAgentRequest(record), same ? { endpoints } : {});
    } catch (err) {
      this.onError(err, { requestId });
    }
  }

  /**
   * AGENT_REQUEST.NEEDS_USER: the run paused for its end user. The body holds a live link token, so it is sealed at
   * rest; each pause is its own event (a run may pause more than once).
   */
  async agentRequestNeedsUser(record: AgentRequestRecord, userAction: UserAction): Promise<void> {
    try {
      await this.emit(record, 'AGENT_REQUEST.NEEDS_USER', presentAgentRequest(record, userAction), { sealed: true });
    } catch (err) {
      this.onError(err, { type: 'AGENT_REQUEST.NEEDS_USER', requestId: record.id });
    }
  }

  /**
   * LINK.SESSION_FINISHED for a link session that just ended. Its id comes from the session, so the event exists once
   * however many callers report the end; a body with a public token is sealed at rest. Failures are reported, never
   * thrown (the session already ended).
   */
  async linkSessionFinished(outcome: LinkSessionOutcome): Promise<void> {
    const { session } = outcome;
    try {
      await this.emit(session, 'LINK.SESSION_FINISHED', presentLinkSessionFinished(outcome), {
        eventId: sessionFinishedEventId(session.id),
        sealed: outcome.publicToken !== null,
      });
    } catch (err) {
      this.onError(err, { type: 'LINK.SESSION_FINISHED', linkSessionId: session.id });
    }
  }

  /** Runs an emit off the caller's path; `idle()` waits for every one still running (tests, shutdown). */
  inBackground(work: Promise<unknown>): void {
    const p = work.catch((err) => this.onError(err, {})).finally(() => this.background.delete(p));
    this.background.add(p);
  }

  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }
}

export function newDelivery(endpointId: string, event: WebhookEventRecord, now: Date): WebhookDeliveryRecord {
  return {
    id: newId('whdl'),
    endpointId,
    eventId: event.id,
    organizationId: event.organizationId,
    environment: event.environment,
    eventType: event.type,
    status: 'PENDING',
    attempts: 0,
    nextAttemptAt: now,
    leaseOwner: null,
    leaseExpiresAt: null,
    lastResponseStatus: null,
    lastError: null,
    attemptLog: [],
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

const FINISHED_TYPES: WebhookEventType[] = ['AGENT_REQUEST.COMPLETED', 'AGENT_REQUEST.FAILED'];
