import type { RunState } from '../run/state';

/**
 * What a run does when its browser goes away: a remote Chromium (BROWSER_WS_ENDPOINT) that restarts, or a local
 * one that crashes. A request is never lost to it, and never run twice where that could repeat a change:
 *   - the browser cannot be reached when the run opens its context: nothing ran, so the request goes back to the
 *     queue with its attempt not counted, and this worker pauses before claiming again (backing off while it lasts);
 *   - the browser dies mid-run: if the page had sent nothing that may change the provider (no POST/PUT/PATCH/DELETE,
 *     no WebSocket message), the request runs again as its next attempt; otherwise, or on its last attempt, it
 *     fails with BROWSER_LOST, saying why it was not retried.
 */
export class BrowserUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the browser could not be reached: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
    this.name = 'BrowserUnavailable';
  }
}

/** Whether the run's browser disconnected (died, or the remote endpoint went away) while the run held a context. */
export function browserLost(state: RunState): boolean {
  const browser = state.context?.browser();
  return !!browser && !browser.isConnected();
}

/** The pause after the browser could not be reached: 1 s, doubling per failure in a row, at most 30 s. */
export function unavailableBackoffMs(failuresInARow: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, Math.min(5, failuresInARow - 1)));
}

export function lostBrowserError(state: RunState, maxAttempts: number): { code: 'BROWSER_LOST'; message: string } {
  const why =
    state.changesSent > 0
      ? `the page had already sent ${state.changesSent} request(s) that may have changed something, so it was not run again`
      : `it had no attempt left (${state.record.attempts} of ${maxAttempts})`;
  return { code: 'BROWSER_LOST', message: `The browser running this request went away mid-run, and ${why}.` };
}
