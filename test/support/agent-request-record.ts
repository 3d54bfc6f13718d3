import { newId } from '../../server/domain/ids';
import type { AgentRequestRecord } from '../../server/store';

/**
 * A PENDING agent request row as the service would insert it, for store tests that write rows directly: every
 * column set (a new column shows up here once, not in each test), `overrides` on top.
 */
export function pendingAgentRequest(overrides: Partial<AgentRequestRecord> = {}): AgentRequestRecord {
  return {
    id: newId('areq'),
    organizationId: 'org_store_test',
    environment: 'sandbox',
    connectionId: 'conn_store_test',
    providerId: 'orbit',
    action: 'Read my profile',
    startingUrl: 'http://orbit.sandbox.localhost/me',
    parameters: {},
    responseFormat: {},
    timeoutMs: 60_000,
    mode: 'read_write',
    playbook: null,
    approval: null,
    sealedUserAction: null,
    userDecision: null,
    warnings: [],
    status: 'PENDING',
    result: null,
    error: null,
    createdAt: new Date(),
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
    traceParent: null,
    ...overrides,
  };
}
