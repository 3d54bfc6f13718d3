/**
 * Playwright captures a stack on every API call and every race it sets up (to name the call in its logs, to keep where
 * a wait began). Under jest, formatting a stack goes through jest's source-map support, which maps every frame through
 * the test files' source maps: measured at 5 % of a browser test file's Node CPU (orbit-social.playbook, --cpu-prof).
 * A stack Playwright captures inside itself is formatted as V8 does, unmapped; the lines of a test's own frames are the
 * same either way (Sucrase keeps every line where it was: jest.config.js), and every other stack is mapped as before.
 * (A setupFilesAfterEnv file: jest installs its hook after the setupFiles.)
 */
type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

const mapped = Error.prepareStackTrace as PrepareStackTrace | undefined;
if (mapped) {
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) =>
    frames[0]?.getFileName()?.includes('/node_modules/playwright-core/')
      ? `${String(error)}${frames.map((frame) => `\n    at ${String(frame)}`).join('')}`
      : mapped(error, frames);
}
