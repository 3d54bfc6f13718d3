import { randomUUID } from 'node:crypto';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import type { RunContext } from '../../server/agent/run/context';

/**
 * The run context the worker hands a strategy, for tests and benches that drive strategies on a page of their own: a
 * fresh request id, the result schema compiled from the response format, no person to ask, an abort signal nobody
 * fires, and a deadline `timeoutMs` from now.
 */
export function testRunContext(
  o: Pick<RunContext, 'action' | 'startingUrl' | 'responseFormat' | 'provider' | 'context' | 'page' | 'integrity' | 'record'> & {
    organizationId: string;
    parameters?: Record<string, unknown>;
    mode?: RunContext['mode'];
    secrets?: string[];
    timeoutMs?: number;
  },
): RunContext {
  return {
    requestId: `areq_${randomUUID()}`,
    owner: { organizationId: o.organizationId, environment: 'sandbox' },
    action: o.action,
    startingUrl: o.startingUrl,
    parameters: o.parameters ?? {},
    responseFormat: o.responseFormat,
    mode: o.mode ?? 'read_write',
    resultSchema: compileResponseFormat(o.responseFormat),
    provider: o.provider,
    context: o.context,
    page: o.page,
    signal: new AbortController().signal,
    deadline: Date.now() + (o.timeoutMs ?? 40_000),
    record: o.record,
    integrity: o.integrity,
    secrets: o.secrets ?? [],
    ...NO_PERSON,
  };
}
