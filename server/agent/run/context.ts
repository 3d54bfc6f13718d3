import type { BrowserContext, Page } from 'playwright-core';

import type { JsonSchema } from '../../../contract/response-format';
import { EgressPolicy } from '../../egress/egress-policy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type {
  AgentModelUsage as ModelUsage,
  AgentRequestWarning,
  AgentRunMethod as ExecutionMethod,
  AgentTraceStep as TraceStep,
} from '../../store/records';
import type { UserDoor } from '../handoff/user-ask';
import type { RunIntegrity } from './integrity';

// The trace, method and usage are stored on the agent request as they are: one definition, in the store's records.
export type { AgentRunMethod as ExecutionMethod, AgentModelUsage as ModelUsage, AgentTraceStep as TraceStep } from '../../store/records';

/**
 * What one execution strategy (playbook, replay, planner) gets and returns. The worker owns the
 * browser context, the deadline and the record; a strategy only drives the page and reports.
 */
export interface RunContext extends UserDoor {
  requestId: string;
  /** Whose run this is: learned trajectories are kept per organization and environment (they hold names seen on its pages). */
  owner: { organizationId: string; environment: 'sandbox' | 'production' };
  action: string;
  startingUrl: string;
  /** The playbook the request names (no routing), if any. */
  playbook?: string | null;
  parameters: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  /** `read`: the browser's state-changing requests are blocked at the network, and no playbook that writes runs. */
  mode: 'read' | 'read_write';
  /** JSON Schema compiled from responseFormat; the result must validate against it. */
  resultSchema: JsonSchema;
  provider: ProviderDefinition;
  context: BrowserContext;
  /** The current tab: the planner and the replay move it when the model switches tabs (server/agent/tabs/run-tabs.ts). */
  page: Page;
  /** Aborted on timeout or cancel; strategies check it between awaits (throwing via throwIfAborted). */
  signal: AbortSignal;
  /**
   * Aborted, with the blocked request as its reason, once the fence blocked a navigation of the run's tab: the tab now
   * shows the browser's error page, so a scripted step waiting for the page it expected can stop waiting.
   */
  navigationBlocked?: AbortSignal;
  /** In run time (run-clock.ts `runNow()`): time spent waiting for the end user does not count. */
  deadline: number;
  /** Appends a step to the request's trace. */
  record(step: TraceStep): void;
  /** Whether the run stayed clean (only clean runs are recorded for replay), and where parameters went. */
  integrity: RunIntegrity;
  /**
   * Strings no model, trace or trajectory may ever hold: the connection's stored credentials (for silent
   * re-login). They are never parameters, so the planner can never fill them in anywhere.
   */
  secrets: readonly string[];
}

export type RunOutcome =
  | { status: 'completed'; result: unknown; usage?: ModelUsage; warnings?: AgentRequestWarning[] }
  | { status: 'failed'; code: string; message: string; details?: unknown; usage?: ModelUsage }
  /** This strategy does not apply (no playbook matches, no replay recorded, a replay step diverged …): try the next. */
  | { status: 'not_applicable'; reason: string; details?: unknown; usage?: ModelUsage };

export interface ExecutionStrategy {
  readonly method: ExecutionMethod;
  run(ctx: RunContext): Promise<RunOutcome>;
}

/** The run's egress policy (the navigate tool asks it, as the browser's proxy does). */
export function egressOf(ctx: Pick<RunContext, 'provider' | 'owner'>): EgressPolicy {
  return EgressPolicy.forProvider(ctx.provider, ctx.owner.environment);
}
