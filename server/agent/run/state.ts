import type { BrowserContext, Page } from 'playwright-core';

import type { DeviceProfile } from '../../browser/device-profile';
import type { ProviderSession } from '../../browser/session-format';
import type { ChangeGate } from '../../egress/egress-proxy';
import type { UpstreamProxy } from '../../egress/upstream-proxy';
import type { AgentRequestRecord } from '../../store';
import type { RunHandoff } from '../handoff/run-handoff';
import { Redactor } from '../observation';
import type { WarmContext } from '../worker/warm-contexts';
import type { ExecutionMethod, ModelUsage, TraceStep } from './context';
import { RunIntegrity } from './integrity';
import type { BlockedRequest, RunMode } from './network-guard';
import { RunStages } from './stages';
import type { RunTelemetry } from './telemetry';
import { errorText, pageUrl } from './trace';

/** One run's state, as the worker builds it up: what it ends with is written in one final write. */
export interface RunState {
  record: AgentRequestRecord;
  trace: TraceStep[];
  method: ExecutionMethod | null;
  usage: ModelUsage | null;
  context?: BrowserContext;
  page?: Page;
  blockedNavigation?: BlockedRequest;
  /** Aborted, with the BlockedRequest as its reason, when the fence first blocks a navigation of the run's tab. */
  navigationBlocked: AbortController;
  /** `read`: the browser's state-changing requests are blocked at the network (default read_write). */
  mode?: RunMode;
  /** The provider session is dead: do not seal this context's state back. */
  sessionDead: boolean;
  /** Blocked requests, refusals and injection markers of this run (a tainted run is never recorded for replay). */
  integrity: RunIntegrity;
  /** The connection's stored credentials: masked in every trace entry, shown to no model. */
  secrets: string[];
  /** Masks `secrets` in trace entries (set with them). */
  masker?: Redactor;
  /** Told of every step stored in the trace, as stored, and of strategies and the end (metrics and traces). */
  telemetry?: RunTelemetry;
  /** Requests the pages sent that may change something (not GET/HEAD/OPTIONS), and WebSocket messages: a run with none may run again. */
  changesSent: number;
  /** The connection's device and exit, as this run presents them (a silent re-login presents them too). */
  device?: DeviceProfile | null;
  exitProxy?: UpstreamProxy | null;
  /** SHA-256 of the session the context was loaded with (session-digest.ts): an identical one is not sealed again. */
  sessionDigest?: string;
  /** The digest of the session the context holds as the run ends, once sealed back (or found unchanged) onto an ACTIVE connection. */
  sealedDigest?: string;
  /** The session as sealed back (sealedDigest's): what a context prepared for the next run is loaded with (warm-contexts.ts). */
  sealedSession?: ProviderSession;
  /** Opens a context for the next run of this run's warm key, loaded with `session`, no run attached (warm-contexts.ts prepare). */
  reopen?: (session: ProviderSession) => Promise<WarmContext>;
  /** The context with the fence wiring it was opened with: kept warm for the next run of its key when the run ends well. */
  warm?: WarmContext;
  /** The provider's origins: the only ones whose storage is restored and sealed back. */
  providerOrigin?: (origin: string) => boolean;
  /** Why the connection's upstream proxy failed a connection (the first time): what the run fails with if it cannot start. */
  upstreamFailure?: string;
  /** Writes wait here for the user's approval (the request's `approval`): the egress proxy holds them until it answers. */
  approve?: ChangeGate['approve'];
  /** The run's door to its user, once the run knows its provider (absent: this worker cannot pause runs). */
  handoff?: RunHandoff;
  /** Where the run's time goes, stage by stage (run-stages.ts). */
  stages: RunStages;
}

export function newRunState(record: AgentRequestRecord): RunState {
  return {
    record,
    trace: [],
    method: null,
    usage: null,
    sessionDead: false,
    navigationBlocked: new AbortController(),
    mode: record.mode,
    integrity: new RunIntegrity(record.parameters),
    secrets: [],
    changesSent: 0,
    stages: new RunStages(),
  };
}

/** Sets the run's secrets: from now on no trace entry holds them. */
export function setSecrets(state: RunState, secrets: string[]): void {
  state.secrets = secrets.filter((s) => typeof s === 'string' && s.length > 0);
  // A blocked request carrying a stored credential is the run's to answer for, whenever the page sends it.
  state.integrity.causes.protect(state.secrets);
  state.masker = state.secrets.length ? new Redactor({ secrets: state.secrets }) : undefined;
}

function masked(step: TraceStep, m: Redactor): TraceStep {
  return {
    ...step,
    tool: m.maskSecrets(step.tool),
    ...(step.target === undefined ? {} : { target: m.maskSecrets(step.target) }),
    ...(step.url === undefined ? {} : { url: m.maskSecrets(step.url) }),
    ...(step.error === undefined ? {} : { error: m.maskSecrets(step.error) }),
  };
}

const MAX_TRACE_STEPS = 500;

export function pushStep(state: RunState, step: TraceStep) {
  if (state.trace.length >= MAX_TRACE_STEPS) return;
  const stored = state.masker ? masked(step, state.masker) : step;
  state.trace.push(stored);
  state.telemetry?.step(stored);
}

/** Times one worker-level step into the trace. */
export async function timedStep<T>(state: RunState, tool: string, target: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    const v = await fn();
    pushStep(state, { tool, target, url: pageUrl(state.page), durationMs: Math.round(performance.now() - t0), outcome: 'ok' });
    return v;
  } catch (err) {
    pushStep(state, {
      tool,
      target,
      url: pageUrl(state.page),
      durationMs: Math.round(performance.now() - t0),
      outcome: 'error',
      error: errorText(err),
    });
    throw err;
  }
}

export function addUsage(a: ModelUsage | null, b: ModelUsage | undefined): ModelUsage | null {
  if (!b) return a;
  return {
    calls: (a?.calls ?? 0) + b.calls,
    promptTokens: (a?.promptTokens ?? 0) + b.promptTokens,
    completionTokens: (a?.completionTokens ?? 0) + b.completionTokens,
  };
}
