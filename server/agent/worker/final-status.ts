import type { Logger } from 'pino';

import type { ProviderDefinition } from '../../providers/catalogue';
import type { AgentRequestError, AgentRequestStatus, AgentRequestWarning } from '../../store';
import { UserDoorError } from '../handoff/user-ask';
import { AgentTimeoutError } from '../result/errors';
import type { RunOutcome } from '../run/context';
import { RunAborted, RunFailure } from '../run/errors';
import { pushStep, type RunState } from '../run/state';
import { errorText, failureScreenshot, pageUrl } from '../run/trace';
import { BrowserUnavailable } from './browser-loss';

/** How a run ends: the one final write (worker.ts). */
export interface Final {
  status: Exclude<AgentRequestStatus, 'PENDING' | 'RUNNING'>;
  result?: unknown;
  error?: AgentRequestError;
  warnings?: AgentRequestWarning[];
}

/** Never written: a run that could not reach its browser goes back to the queue (browser-loss.ts). */
export const UNREACHABLE = 'BROWSER_UNAVAILABLE';

/** The final status of a run that threw or was aborted: the abort's reason first (timeout, cancel, the person's part). */
export function finalForError(err: unknown, signal: AbortSignal, state: RunState, logger: Logger): Final {
  const reason = signal.aborted ? signal.reason : err;
  // The person's part ended the run (they left, denied a held write, it expired): often the abort reason itself.
  if (reason instanceof UserDoorError) {
    const { details } = reason;
    return { status: 'FAILED', error: { code: reason.code, message: reason.message, ...(details === undefined ? {} : { details }) } };
  }
  if (reason instanceof RunAborted) {
    if (reason.kind === 'TIMED_OUT') {
      return {
        status: 'TIMED_OUT',
        error: { code: 'TIMED_OUT', message: `The request did not finish within its timeout of ${state.record.timeoutMs} ms.` },
      };
    }
    if (reason.kind === 'CANCELED')
      return { status: 'CANCELED', error: { code: 'CANCELED', message: 'The request was canceled while it ran.' } };
    return { status: 'FAILED', error: { code: 'WORKER_LOST', message: reason.message } };
  }
  // A strategy's own deadline guard (server/agent/result/errors.ts) may fire a moment before our timer.
  if (err instanceof AgentTimeoutError) {
    return {
      status: 'TIMED_OUT',
      error: { code: 'TIMED_OUT', message: `The request did not finish within its timeout of ${state.record.timeoutMs} ms.` },
    };
  }
  if (err instanceof BrowserUnavailable) return { status: 'FAILED', error: { code: UNREACHABLE, message: err.message } };
  if (err instanceof RunFailure) {
    return {
      status: 'FAILED',
      error: { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) },
    };
  }
  logger.error({ err, requestId: state.record.id }, 'agent run crashed');
  return { status: 'FAILED', error: { code: 'INTERNAL_ERROR', message: `The run stopped on an unexpected error: ${errorText(err)}` } };
}

/** A failed run gets a screenshot of where it stopped, as its trace's last step, when no step took one already. */
export async function traceWhereItStopped(state: RunState, why: string): Promise<void> {
  if (!state.page || state.trace.some((s) => s.screenshot)) return;
  const screenshot = await failureScreenshot(state.page);
  if (screenshot) pushStep(state, { tool: 'end', target: why, url: pageUrl(state.page), durationMs: 0, outcome: 'error', screenshot });
}

/**
 * A strategy that failed after the fence blocked its tab's navigation fails with the block, its own error as the cause.
 * The block is not always a way out of the provider: read mode stops the provider's own form posts too.
 */
export function finalForBlockedNavigation(
  state: RunState,
  provider: ProviderDefinition,
  outcome: Extract<RunOutcome, { status: 'failed' }>,
): Final {
  const b = state.blockedNavigation!;
  let offProvider = true;
  try {
    offProvider = !state.providerOrigin?.(new URL(b.url).origin);
  } catch {
    // not a URL: said as it is
  }
  const what = offProvider ? `tried to leave ${provider.name}: ${b.url}` : `tried to load ${b.url}, which`;
  return {
    status: 'FAILED',
    error: {
      code: 'NAVIGATION_BLOCKED',
      message: `The run ${what} was blocked (${b.reason}).`,
      details: { url: b.url, cause: { code: outcome.code, message: outcome.message } },
    },
  };
}
