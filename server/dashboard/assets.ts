import fs from 'node:fs';

import express, { type Router } from 'express';

/** The UI toolkit (Pico CSS, htmx) comes from npm and is served by this process; plus a little CSS and JS of ours. */
const DASHBOARD_CSS = `
.inline { margin: 0; }
.narrow { max-width: 32rem; margin: 2rem auto; }
.notice { padding: .5rem .75rem; border-radius: .25rem; }
.notice.error { background: #fdecea; color: #8a1c12; }
.notice.ok { background: #e8f5e9; color: #1b5e20; }
.status { font-family: monospace; font-size: .85em; padding: .1rem .35rem; border-radius: .2rem; background: #eef; }
.status-ACTIVE, .status-COMPLETED, .outcome-ok { background: #e8f5e9; }
.status-REVOKED, .status-FAILED, .status-TIMED_OUT, .outcome-error, .outcome-blocked { background: #fdecea; }
.status-LOGIN_REQUIRED, .status-PENDING, .status-RUNNING { background: #fff8e1; }
.clip { max-width: 22rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.screenshot { max-width: 100%; border: 1px solid #ccc; }
.env-switch a { margin-right: .5rem; }
`;

/** Copy buttons: `data-copy` holds the value. No inline script anywhere (the CSP allows scripts from 'self' only). */
const DASHBOARD_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('[data-copy]');
  if (!button) return;
  var value = button.getAttribute('data-copy');
  var done = function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = 'Copy'; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(value).then(done, function () {});
  else { var input = button.parentElement.querySelector('input'); if (input) { input.select(); document.execCommand('copy'); done(); } }
});
`;

export function dashboardAssets(): Router {
  const router = express.Router();
  const files: Record<string, { type: string; body: Buffer }> = {
    'pico.min.css': { type: 'text/css', body: fs.readFileSync(require.resolve('@picocss/pico/css/pico.min.css')) },
    'htmx.min.js': { type: 'application/javascript', body: fs.readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) },
    'dashboard.css': { type: 'text/css', body: Buffer.from(DASHBOARD_CSS) },
    'dashboard.js': { type: 'application/javascript', body: Buffer.from(DASHBOARD_JS) },
  };
  router.get('/:file', (req, res, next) => {
    const file = files[req.params.file];
    if (!file || !Object.prototype.hasOwnProperty.call(files, req.params.file)) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(file.type).send(file.body);
  });
  return router;
}
