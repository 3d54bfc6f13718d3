import fs from 'node:fs';

import express, { type Router } from 'express';

import { PAGE_ENTRIES } from '../page-code/entries';
import { pageBundle } from '../page-code/page-bundle';

/**
 * The UI toolkit (Pico CSS, htmx) comes from npm and is served by this process; plus a little CSS of ours, and our
 * script (dashboard.page.ts, bundled: see page-code/entries.ts).
 */
const DASHBOARD_CSS = `
.inline { margin: 0; }
.narrow { max-width: 32rem; margin: 2rem auto; }
.notice { padding: .5rem .75rem; border-radius: .25rem; }
.notice.error { background: #fdecea; color: #8a1c12; }
.notice.ok { background: #e8f5e9; color: #1b5e20; }
.notice.warn { background: #fff4e5; color: #7a4100; border-left: .3rem solid #f29900; font-weight: 600; }
.status { font-family: monospace; font-size: .85em; padding: .1rem .35rem; border-radius: .2rem; background: #eef; white-space: nowrap; }
.status-ACTIVE, .status-COMPLETED, .outcome-ok, .check-SIGNED_IN, .check-RENEWED { background: #e8f5e9; }
.status-REVOKED, .status-FAILED, .status-TIMED_OUT, .outcome-error, .outcome-blocked, .check-TIMED_OUT, .check-UNREACHABLE, .check-SESSION_UNREADABLE { background: #fdecea; }
.status-LOGIN_REQUIRED, .status-PENDING, .status-RUNNING, .check-LOGIN_REQUIRED { background: #fff8e1; }
/* NEEDS_USER: the run is paused until its end user acts; it stands out from the runs that go on by themselves. */
.status-NEEDS_USER { background: #ffe0b2; color: #7a4100; font-weight: 600; }
.user-action { border-left: .3rem solid #f29900; }
.user-action details { margin-bottom: .5rem; }
.clip { max-width: 18rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.screenshot { max-width: 100%; border: 1px solid #ccc; }
.env-switch a { margin-right: .5rem; }
/* Tables fit their column: ids clipped (whole in the text and on hover), times on one line, and a table that still
   cannot fit scrolls inside its own box rather than widening the page. */
.table-wrap { max-width: 100%; overflow-x: auto; }
.table-wrap table { margin-bottom: 0; }
td, th { vertical-align: top; }
code.id { display: inline-block; max-width: 12ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
code.id-full { overflow-wrap: anywhere; }
time.when, td.num { white-space: nowrap; }
td.num { text-align: right; }
td.wrap { overflow-wrap: anywhere; }
h1 { overflow-wrap: anywhere; }
main table:not(.cards) td { overflow-wrap: anywhere; }
pre { max-width: 100%; overflow-x: auto; }
/* A row's actions (Revoke, Re-send) stay in view at any width: the last column sticks to the right edge of its
   table's box, so scrolling a wide table never hides them. */
.has-actions th:last-child, .has-actions td:last-child { position: sticky; right: 0; background: var(--pico-background-color); white-space: nowrap; }
.has-actions td:last-child form { margin: 0; }
.has-actions td:last-child button { padding: .25rem .6rem; margin: 0; }
/* The organization's menu wraps rather than widening the page once its items outgrow the width. */
header nav, header nav ul { flex-wrap: wrap; }
/* A phone: each row becomes a card whose cells name their column (data-label). */
@media (max-width: 640px) {
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr { border-bottom: 1px solid #ddd; padding: .35rem 0; }
  table.cards td { display: flex; gap: .75rem; justify-content: space-between; padding: .15rem .25rem; border: 0; text-align: right; }
  table.cards td::before { content: attr(data-label); font-weight: 600; text-align: left; flex: none; }
  table.cards td.clip { max-width: none; white-space: normal; overflow-wrap: anywhere; }
  .has-actions th:last-child, .has-actions td:last-child { position: static; }
  /* The trace: each step a block of its own; its screenshot as wide as the screen, never cut off. */
  table.trace thead { display: none; }
  table.trace, table.trace tbody, table.trace tr, table.trace td { display: block; width: 100%; }
  table.trace td { border: 0; padding: .1rem .25rem; }
  table.trace td:empty { display: none; }
  table.trace tr { border-bottom: 1px solid #ddd; }
  table.trace td.clip { max-width: none; white-space: normal; overflow-wrap: anywhere; }
  header nav ul li { padding-top: .2rem; padding-bottom: .2rem; }
  code.id { max-width: 16ch; }
  .env-switch a { margin-bottom: .25rem; }
}
`;

export function dashboardAssets(): Router {
  const router = express.Router();
  const files: Record<string, { type: string; body: Buffer }> = {
    'pico.min.css': { type: 'text/css', body: fs.readFileSync(require.resolve('@picocss/pico/css/pico.min.css')) },
    'htmx.min.js': { type: 'application/javascript', body: fs.readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) },
    'dashboard.css': { type: 'text/css', body: Buffer.from(DASHBOARD_CSS) },
    'dashboard.js': { type: 'application/javascript', body: Buffer.from(pageBundle(PAGE_ENTRIES.dashboard)) },
  };
  router.get('/:file', (req, res, next) => {
    const file = files[req.params.file];
    if (!file || !Object.prototype.hasOwnProperty.call(files, req.params.file)) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(file.type).send(file.body);
  });
  return router;
}
