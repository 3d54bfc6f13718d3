import type { UserAction } from '../../../contract/schemas';
import { EgressPolicy } from '../../egress/egress-policy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { ClaimedRequest } from '../queue/queue';
import { pushStep, type RunState } from '../run/state';
import type { WorkerDeps } from '../worker/deps';
import { cookieValuesOf, summarizeHeldWrite } from './held-write';
import { pageStill } from './page-still';
import { RunHandoff } from './run-handoff';

/**
 * The worker's side of a run's hand-off: the hooks through which a pause and a resume are written to the run's row
 * (under the worker's lease), announced (event, webhook) and counted against the worker's slots. Null when this worker
 * cannot pause runs (the run then has nobody to ask).
 */
export function runHandoffFor(
  deps: WorkerDeps,
  state: RunState,
  provider: ProviderDefinition,
  claim: ClaimedRequest,
  controller: AbortController,
  seat: { paused(): void; resumed(): Promise<void> },
): RunHandoff | null {
  const handoffs = deps.handoffs;
  if (!handoffs) return null;
  const { record } = state;
  const { requests: repo, events } = deps;
  return new RunHandoff({
    requestId: record.id,
    organizationId: record.organizationId,
    environment: record.environment,
    provider,
    policy: EgressPolicy.forProvider(provider, record.environment),
    action: record.action,
    approval: record.approval ?? null,
    ttlMs: handoffs.desk.ttlMs,
    page: () => state.page,
    signal: controller.signal,
    seat: handoffs.registry,
    summarize: async (write) => summarizeHeldWrite(write, state, await cookieValuesOf(state.context)),
    ...(record.approval ? { picture: () => pageStill(state.page) } : {}),
    hooks: {
      pause: async (ask) => {
        const { linkToken, url } = await handoffs.desk.linkFor(record, ask.expiresAt);
        const action: UserAction = {
          reason: ask.reason,
          message: ask.message,
          since: ask.since.toISOString(),
          expiresAt: ask.expiresAt.toISOString(),
          linkToken,
          url,
          write: ask.write,
        };
        if (!(await repo.pauseForUser(record.id, claim.owner, handoffs.desk.seal(record.id, action)))) return null;
        events.needsUser(record.id);
        handoffs.desk.announce({ ...record, status: 'NEEDS_USER', trace: state.trace }, action);
        return action;
      },
      resume: () => repo.resumeFromUser(record.id, claim.owner),
      paused: seat.paused,
      resumed: seat.resumed,
      abort: (reason) => controller.abort(reason),
      record: (step) => pushStep(state, step),
    },
  });
}
