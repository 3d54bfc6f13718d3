import { startNodeRed } from './node-red-app';
import { NODE_RED as NODE_RED_DEF, type RealAppDefinition, VERDACCIO as VERDACCIO_DEF } from './real-app';
import { startVerdaccio } from './verdaccio-app';

/** The corpus's apps with their launchers (the test and the bench run the same list). */
export const REAL_APPS: RealAppDefinition[] = [
  { ...VERDACCIO_DEF, start: startVerdaccio },
  { ...NODE_RED_DEF, start: startNodeRed },
];

/**
 * The target behaviour the corpus does not reach today, each with the branch whose merge makes it hold. The test
 * keeps each one's assertion (the acceptance spec) and skips it while it is listed here; after merging the branch,
 * delete its lines and run `npm run test:real-apps` (AGENTLINK_REAL_APPS_ALL_TARGETS=1 runs the listed ones too).
 * Checked on a trial merge (not committed): with `ready` (f443fb1) every line marked 'ready' held but Node-RED's
 * replay; with `replay` (7fdb98a) too, Verdaccio's latest-version replayed; the two lines marked 'none yet' still fail.
 *
 * Key: `<app>/<read>/<check>`; checks: `ready` (the first observation shows the content), `calls` (the fewest model
 * calls the read needs: no call spent on waiting), `replayed` (the first run was recorded and the second replayed it
 * with 0 model calls); and `<app>/session-check` (a session check after the reads finds the session signed in).
 */
export const BLOCKED_BY: Record<string, string> = {
  // Tainted twice, by requests the run did not cause: the palette's background fetch of catalogue.nodered.org
  // (blocked by the fence; `ready`'s "taint only run-caused blocked requests" clears it), and, in read mode, the
  // editor's own WebSocket message on /comms (its auth handshake right after the page loads, held by read mode's write
  // gate), which still taints with `ready` merged. It needs a rule no branch has yet (a same-origin WebSocket message
  // the page sends on its own, before any tool action, is not the run's write) or a provider-declared allowance.
  // Seen once in three bench runs besides: the editor's POST /settings/user after the tab click (it saves the
  // person's view settings), held by read mode; declaring it in the provider's sessionRefresh would let it through.
  'node-red/flow-description/replayed': 'ready + none yet (read-mode WebSocket messages the page sends on its own)',
};

/** The fewest model calls each read needs when the first observation shows the content: one per action, and `done`. */
export const FEWEST_CALLS: Record<string, number> = {
  'verdaccio/latest-version': 1,
  'verdaccio/package-description': 1,
  'node-red/flow-description': 2,
};
