import { SpanKind, trace, type Tracer } from '@opentelemetry/api';

import { AGENT_REQUEST_LIST_LIMITS, LIMITS } from '../../contract/schemas';
import { traceParentOf } from '../observability/trace-context';
import type { ProviderCatalogue, ProviderDefinition } from '../providers/catalogue';
import type { AgentApprovalMode, AgentRequestRecord, AgentRequestStatus, AgentRunMode, KeysetPosition, Store } from '../store';
import { decodeKeysetCursor, encodeKeysetCursor } from '../store/keyset-cursor';
import type { AgentRequestEvents } from './agent-request-events';
import { AgentRequestReads, FINAL_STATUSES } from './agent-request-reads';
import type { Clock } from './clock';
import type { ConnectionService } from './connections.service';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { checkStartingUrl } from './starting-url.policy';

export interface AgentRequestInput {
  accessToken: string;
  action: string;
  /** Where the run begins; absent, the provider's home page (the API requires it; the MCP tool defaults it). */
  startingUrl?: string;
  parameters: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  timeoutMs?: number;
  mode?: AgentRunMode;
  /** Writes wait for the end user's approval (never in read mode). */
  approval?: AgentApprovalMode;
  /** Run this playbook instead of routing the action. */
  playbook?: string;
}

/**
 * What this service needs of the agent, declared here (domain/ imports nothing of server/agent/; the composition root,
 * server/services.ts, hands in the agent's queue and playbook registry, which fit these).
 */

/** Makes a freshly written PENDING request known to the workers (the agent queue). */
/** A request on a connection named by its id: for callers holding the organization's credentials, not an access token (the MCP tools). */
export type ConnectionAgentRequestInput = Omit<AgentRequestInput, 'accessToken'> & { connectionId: string };

export interface AgentRequestQueue {
  enqueue(requestId: string): Promise<void>;
}

/** Why a request that names its playbook would not run: the kinds the API answers with its own error (others: UNKNOWN_PLAYBOOK). */
export type NamedPlaybookProblem =
  | {
      kind: 'parameters';
      code: 'PLAYBOOK_PARAMETERS_MISSING' | 'PLAYBOOK_PARAMETERS_INVALID';
      issues: readonly { path: string; message: string }[];
    }
  | { kind: 'read-only' }
  | { kind: 'unknown-playbook'; available: string[] }
  | { kind: 'no-match' | 'ambiguous' | 'none' };

/** Checks a request that names its playbook (the agent's playbook registry): null, it would run; else why not. */
export interface NamedPlaybookCheck {
  checkNamed(
    provider: ProviderDefinition,
    input: { playbook: string; action: string; parameters: unknown; startingUrl?: string; mode?: 'read' | 'read_write' },
  ): { reason: string; problem: NamedPlaybookProblem } | null;
}

export interface AgentRequestListQuery {
  status?: AgentRequestStatus;
  limit?: number;
  cursor?: string;
  /** The dashboard's filters: one provider, and created in [createdFrom, createdBefore). */
  providerId?: string;
  connectionId?: string;
  createdFrom?: Date;
  createdBefore?: Date;
}

/**
 * Accepting an agent request only validates it against its connection and writes it as PENDING:
 * the stored row is the queue entry, holding everything a worker needs to run it.
 */
export class AgentRequestService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly catalogue: ProviderCatalogue,
    private readonly connections: ConnectionService,
    private readonly queue?: AgentRequestQueue,
    private readonly events?: AgentRequestEvents,
    private readonly onEnqueueError?: (err: unknown, requestId: string) => void,
    private readonly playbooks?: NamedPlaybookCheck,
    /** OpenTelemetry (a no-op unless tracing is configured). */
    private readonly tracer: Tracer = trace.getTracer('agentlink'),
  ) {
    this.reads = new AgentRequestReads(store, events);
  }

  /** Reading a request as it changes: waits, and the read after a decision. */
  private readonly reads: AgentRequestReads;

  /** A named playbook is checked before the request is accepted: nothing is queued and no browser opens for a bad one. */
  private checkPlaybook(
    provider: ProviderDefinition,
    input: AgentRequestInput | ConnectionAgentRequestInput,
    startingUrl: URL,
  ): Result<null> {
    if (!input.playbook) return ok(null);
    const refused = this.playbooks?.checkNamed(provider, {
      playbook: input.playbook,
      action: input.action,
      parameters: input.parameters,
      startingUrl: startingUrl.toString(),
      mode: input.mode ?? 'read_write',
    });
    if (!refused && this.playbooks) return ok(null);
    const problem: NamedPlaybookProblem = refused?.problem ?? { kind: 'unknown-playbook', available: [] };
    const reason = refused?.reason ?? `no playbooks are registered`;
    if (problem.kind === 'parameters') return fail(problem.code, reason, problem.issues);
    if (problem.kind === 'read-only')
      return fail('PLAYBOOK_WRITES_IN_READ_MODE', reason, [{ path: 'playbook', message: 'changes things; the request has mode read' }]);
    const available = problem.kind === 'unknown-playbook' ? problem.available : [];
    return fail(
      'UNKNOWN_PLAYBOOK',
      `playbook: ${provider.name} has no action ${input.playbook}${available.length ? ` (it has ${available.join(', ')})` : ''}.`,
      [{ path: 'playbook', message: 'is not an action of this provider', available }],
    );
  }

  /**
   * Traced as the producer of a queued message: its span context is stored on the row (traceParent), so the
   * worker that runs the request, in this process or another, continues the same trace.
   */
  async create(caller: Caller, input: AgentRequestInput | ConnectionAgentRequestInput): Promise<Result<AgentRequestRecord>> {
    const span = this.tracer.startSpan('agent_request publish', {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.operation.type': 'send', 'messaging.destination.name': 'agent-requests' },
    });
    try {
      const result = await this.accept(caller, input, traceParentOf(span));
      if (result.ok)
        span.setAttributes({ 'agentlink.agent_request.id': result.value.id, 'agentlink.provider.id': result.value.providerId });
      else span.setAttribute('agentlink.error.code', result.error.code);
      return result;
    } finally {
      span.end();
    }
  }

  private async accept(
    caller: Caller,
    input: AgentRequestInput | ConnectionAgentRequestInput,
    traceParent: string | null,
  ): Promise<Result<AgentRequestRecord>> {
    if (input.approval && input.mode === 'read') {
      return fail('INVALID_FIELD', 'approval: a run in read mode sends no writes to approve; drop approval or use mode read_write.', [
        { path: 'approval', message: 'needs mode read_write' },
      ]);
    }
    if ('accessToken' in input) {
      const quick = await this.createOnKnownGrant(caller, input, traceParent);
      if (quick) return ok(quick);
    }
    const resolved =
      'accessToken' in input
        ? await this.connections.resolveAccessToken(caller, input.accessToken)
        : await this.usableConnection(caller, input.connectionId);
    if (!resolved.ok) return resolved;
    const connection = resolved.value;
    const provider = await this.catalogue.find(connection.providerId, caller);
    if (!provider) return fail('UNKNOWN_PROVIDER', `The connection's provider ${connection.providerId} is no longer in the catalogue.`);
    const verdict = checkStartingUrl(input.startingUrl ?? provider.homeUrl, provider, caller.environment);
    if (!verdict.ok) return fail('STARTING_URL_NOT_ALLOWED', verdict.reason, { field: 'startingUrl' });
    const named = this.checkPlaybook(provider, input, verdict.url);
    if (!named.ok) return named;
    const record = this.newRecord(
      caller,
      input,
      { connectionId: connection.id, providerId: connection.providerId },
      verdict.url,
      traceParent,
    );
    await this.store.repos.agentRequests.insert(record);
    await this.enqueue(record);
    return ok(record);
  }

  /** A connection of the caller's that can run requests: the checks resolveAccessToken makes, by connection id. */
  private async usableConnection(caller: Caller, connectionId: string): Promise<Result<{ id: string; providerId: string }>> {
    const found = await this.connections.get(caller, connectionId);
    if (!found.ok) return found;
    if (found.value.status === 'REVOKED') return fail('CONNECTION_REVOKED', `Connection ${connectionId} was revoked.`);
    if (found.value.status === 'LOGIN_REQUIRED') {
      return fail(
        'CONNECTION_LOGIN_REQUIRED',
        'The provider session of this connection ended; send the user through the connect flow again (update mode).',
      );
    }
    return ok(found.value);
  }

  /**
   * A token this process already resolved: its connection and provider are known, and whether token and
   * connection are still usable is checked inside the INSERT itself (one statement instead of a lookup and
   * an insert, with the same guarantees). Null when anything is off; the full path then gives the precise error.
   */
  private async createOnKnownGrant(
    caller: Caller,
    input: AgentRequestInput,
    traceParent: string | null,
  ): Promise<AgentRequestRecord | null> {
    const known = this.connections.knownGrant(caller, input.accessToken);
    if (!known) return null;
    const provider = await this.catalogue.find(known.providerId, caller);
    const verdict = provider ? checkStartingUrl(input.startingUrl ?? provider.homeUrl, provider, caller.environment) : null;
    if (!verdict?.ok) return null;
    // A named playbook that does not fit: the full path gives the precise error (after the token checks).
    if (!this.checkPlaybook(provider!, input, verdict.url).ok) return null;
    const record = this.newRecord(caller, input, known, verdict.url, traceParent);
    if (!(await this.store.repos.agentRequests.insertIfGranted(record, known.tokenHash))) return null;
    await this.enqueue(record);
    return record;
  }

  private newRecord(
    caller: Caller,
    input: AgentRequestInput | ConnectionAgentRequestInput,
    on: { connectionId: string; providerId: string },
    startingUrl: URL,
    traceParent: string | null,
  ): AgentRequestRecord {
    return {
      id: newId('areq'),
      organizationId: caller.organizationId,
      environment: caller.environment,
      connectionId: on.connectionId,
      providerId: on.providerId,
      action: input.action,
      startingUrl: startingUrl.toString(),
      parameters: input.parameters,
      responseFormat: input.responseFormat,
      timeoutMs: input.timeoutMs ?? LIMITS.timeoutMsDefault,
      mode: input.mode ?? 'read_write',
      approval: input.approval ?? null,
      playbook: input.playbook ?? null,
      status: 'PENDING',
      sealedUserAction: null,
      userDecision: null,
      result: null,
      error: null,
      warnings: [],
      createdAt: this.clock.now(),
      startedAt: null,
      completedAt: null,
      executionTimeMs: null,
      attempts: 0,
      attemptLog: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      trace: [],
      method: null,
      modelUsage: null,
      cancelRequestedAt: null,
      traceParent,
    };
  }

  /** A failed enqueue loses nothing: the row is the queue entry, and workers sweep up PENDING rows. */
  private async enqueue(record: AgentRequestRecord) {
    if (this.queue) await this.queue.enqueue(record.id).catch((err) => this.onEnqueueError?.(err, record.id));
  }

  /** Newest first, one page at a time; the cursor is opaque to callers. */
  async list(caller: Caller, query: AgentRequestListQuery): Promise<Result<{ records: AgentRequestRecord[]; nextCursor: string | null }>> {
    let after: KeysetPosition | undefined;
    if (query.cursor) {
      const decoded = decodeKeysetCursor(query.cursor, 'areq');
      if (!decoded) return fail('INVALID_CURSOR', 'cursor is not a cursor this API returned; pass nextCursor of the previous page.');
      after = decoded;
    }
    const page = await this.store.repos.agentRequests.listOwned(caller, {
      status: query.status,
      limit: query.limit ?? AGENT_REQUEST_LIST_LIMITS.default,
      after,
      ...(query.providerId ? { providerId: query.providerId } : {}),
      ...(query.connectionId ? { connectionId: query.connectionId } : {}),
      ...(query.createdFrom ? { createdFrom: query.createdFrom } : {}),
      ...(query.createdBefore ? { createdBefore: query.createdBefore } : {}),
    });
    return ok({ records: page.records, nextCursor: page.next ? encodeKeysetCursor(page.next) : null });
  }

  /**
   * Cancels a request: a PENDING one at once; a RUNNING or NEEDS_USER one is flagged, and its worker (here or in another
   * process) stops it and writes CANCELED. A request that already ended cannot be canceled.
   */
  async cancel(caller: Caller, requestId: string): Promise<Result<AgentRequestRecord>> {
    const repo = this.store.repos.agentRequests;
    const record = await repo.findOwned(requestId, caller);
    if (!record) return fail('AGENT_REQUEST_NOT_FOUND', `No agent request ${requestId}.`);
    const now = this.clock.now();
    if (await repo.cancelPending(record.id, now, { code: 'CANCELED', message: 'The request was canceled before it started.' })) {
      this.events?.finished(record.id, record);
    } else if (await repo.requestCancel(record.id, now)) {
      this.events?.cancelRequested(record.id);
    }
    const after = (await repo.findById(record.id))!;
    if (FINAL_STATUSES.has(after.status) && after.status !== 'CANCELED') {
      return fail('AGENT_REQUEST_ALREADY_FINISHED', `Agent request ${requestId} already ended with status ${after.status}.`, {
        status: after.status,
      });
    }
    if (after.status === 'CANCELED' && record.status === 'CANCELED') {
      return fail('AGENT_REQUEST_ALREADY_FINISHED', `Agent request ${requestId} was already canceled.`, { status: after.status });
    }
    return ok(after);
  }

  /**
   * Reads a request; with waitMs, holds the answer until it reaches a final status or NEEDS_USER, or the wait runs out
   * (agent-request-reads.ts).
   */
  wait(caller: Caller, requestId: string, waitMs: number, signal?: AbortSignal): Promise<Result<AgentRequestRecord>> {
    return this.reads.wait(caller, requestId, waitMs, signal);
  }

  /** A request after a decision on its pause was applied, as its caller expects to read it (agent-request-reads.ts). */
  pastPause(
    caller: Caller,
    requestId: string,
    stillPaused: (record: AgentRequestRecord) => boolean,
    waitMs: number,
  ): Promise<Result<AgentRequestRecord>> {
    return this.reads.pastPause(caller, requestId, stillPaused, waitMs);
  }

  get(caller: Caller, requestId: string): Promise<Result<AgentRequestRecord>> {
    return this.reads.get(caller, requestId);
  }
}
