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
  // Empty: Node-RED's flow description replays since read mode judges a WebSocket message by what it carried (the
  // editor's own auth and subscribe frames on /comms at load are held and listed as noise, not a taint).
};

/**
 * The one reason a read may go unrecorded, where the app itself decides it: after the run's click on a flow's tab,
 * Node-RED saves the person's view (POST /settings/user, debounced). Read mode holds that write, and when it leaves
 * within the click's window (about 1 run in 3 here) it is the run's own write and taints the run, as it should: the
 * check then asserts exactly this reason and a second read planned afresh. Any other reason still fails the check.
 */
export const APP_WRITE_AFTER_ACTION: Record<string, RegExp> = {
  'node-red/flow-description':
    /^not recorded for replay: a request was blocked \(xhr http:\/\/127\.0\.0\.1:\d+\/settings\/user(\?_=\d+)?: read mode: POST requests are not sent/,
};

/** The fewest model calls each read needs when the first observation shows the content: one per action, and `done`. */
export const FEWEST_CALLS: Record<string, number> = {
  'verdaccio/latest-version': 1,
  'verdaccio/package-description': 1,
  'node-red/flow-description': 2,
};
