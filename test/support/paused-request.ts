import type { UserAction } from '../../contract/schemas';
import { newId } from '../../server/domain/ids';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { Services } from '../../server/services';
import type { AgentRequestRecord } from '../../server/store';

/** The lease owner of the requests insertPausedRequest writes (to finish them with the repository as a worker would). */
export const PAUSED_OWNER = 'test-worker';

/**
 * An agent request paused NEEDS_USER, written as a worker writes it (RUNNING under its lease, then pauseForUser with
 * the user action sealed to its row), on a new Orbit connection of the organization's sandbox. No worker runs it.
 */
export async function insertPausedRequest(
  services: Services,
  organizationId: string,
  ask: (requestId: string) => UserAction,
  overrides: Partial<AgentRequestRecord> = {},
): Promise<string> {
  const caller = { organizationId, environment: 'sandbox' as const };
  const { connection } = await services.connections.create(caller, {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId: `needs-user-${Math.random().toString(36).slice(2, 8)}`,
    session: { cookies: [], origins: [] },
  });
  const now = services.clock.now().getTime();
  const id = newId('areq');
  const record: AgentRequestRecord = {
    id,
    organizationId,
    environment: 'sandbox',
    connectionId: connection.id,
    providerId: ORBIT_PROVIDER_ID,
    action: 'Send Priya a message',
    startingUrl: 'http://orbit.sandbox.localhost:4000/messages',
    parameters: {},
    responseFormat: {},
    timeoutMs: 60_000,
    mode: 'read_write',
    playbook: null,
    approval: 'writes',
    status: 'RUNNING',
    sealedUserAction: null,
    userDecision: null,
    result: null,
    error: null,
    warnings: [],
    createdAt: new Date(now - 4 * 60_000),
    startedAt: new Date(now - 4 * 60_000),
    completedAt: null,
    executionTimeMs: null,
    attempts: 1,
    attemptLog: null,
    leaseOwner: PAUSED_OWNER,
    leaseExpiresAt: new Date(now + 60_000),
    trace: [],
    method: null,
    modelUsage: null,
    cancelRequestedAt: null,
    traceParent: null,
    ...overrides,
  };
  const repo = services.store.repos.agentRequests;
  await repo.insert(record);
  if (!(await repo.pauseForUser(id, PAUSED_OWNER, services.userActions.seal(id, ask(id))))) throw new Error('pauseForUser refused');
  return id;
}
