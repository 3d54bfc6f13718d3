import { LIMITS } from '../../contract/schemas';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { AgentRequestRecord, Store } from '../store';
import type { Clock } from './clock';
import type { ConnectionService } from './connections.service';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { checkStartingUrl } from './starting-url.policy';

export interface AgentRequestInput {
  accessToken: string;
  action: string;
  startingUrl: string;
  parameters: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  timeoutMs?: number;
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
  ) {}

  async create(caller: Caller, input: AgentRequestInput): Promise<Result<AgentRequestRecord>> {
    const resolved = await this.connections.resolveAccessToken(caller, input.accessToken);
    if (!resolved.ok) return resolved;
    const connection = resolved.value;
    const provider = this.catalogue.get(connection.providerId, caller.environment);
    if (!provider) return fail('UNKNOWN_PROVIDER', `The connection's provider ${connection.providerId} is no longer in the catalogue.`);
    const verdict = checkStartingUrl(input.startingUrl, provider, caller.environment);
    if (!verdict.ok) return fail('STARTING_URL_NOT_ALLOWED', verdict.reason, { field: 'startingUrl' });

    const record: AgentRequestRecord = {
      id: newId('areq'),
      organizationId: caller.organizationId,
      environment: caller.environment,
      connectionId: connection.id,
      providerId: connection.providerId,
      action: input.action,
      startingUrl: verdict.url.toString(),
      parameters: input.parameters,
      responseFormat: input.responseFormat,
      timeoutMs: input.timeoutMs ?? LIMITS.timeoutMsDefault,
      status: 'PENDING',
      result: null,
      error: null,
      createdAt: this.clock.now(),
      startedAt: null,
      completedAt: null,
      executionTimeMs: null,
      attempts: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    await this.store.repos.agentRequests.insert(record);
    return ok(record);
  }

  async get(caller: Caller, requestId: string): Promise<Result<AgentRequestRecord>> {
    const record = await this.store.repos.agentRequests.findOwned(requestId, caller);
    return record ? ok(record) : fail('AGENT_REQUEST_NOT_FOUND', `No agent request ${requestId}.`);
  }
}
