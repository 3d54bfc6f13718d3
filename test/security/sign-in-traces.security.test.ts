import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { ManualClock } from '../../server/domain/clock';
import { api, eventually, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { writeOperatorProviders } from '../support/operator-providers';
import { createLinkToken, widgetSession } from '../support/widget-api';

/**
 * Nothing of AgentLink in the page during a sign-in and a check (issue 36): a provider site the operator declared, on
 * loopback, whose every page carries a detector script watching for what the agent would leave (attributes or elements
 * added after load, new window globals) and reporting to the site as pages go. The widget's sign-in through the login
 * engine and a check's silent re-login fill the form, press its button and read the page after; the detector ran on
 * each page (its reports arrive) and saw nothing. (page-traces.security.test.ts covers a run's tools.)
 */
jest.setTimeout(90_000);

/** The site's detector, first in the page: it only watches, and reports when parsed, on a timer, on submit, when the page goes. */
const DETECTOR = `<script>
(function () {
  var seen = [];
  var armed = false;
  var base = new Set();
  var observer = new MutationObserver(function (ms) {
    if (armed) ms.forEach(function (m) {
      if (m.type === 'attributes') seen.push('attribute ' + m.attributeName + ' on ' + m.target.nodeName);
      m.addedNodes.forEach(function (n) { if (n.nodeType === 1) seen.push('element ' + n.nodeName + ' added'); });
    });
  });
  observer.observe(document, { attributes: true, childList: true, subtree: true });
  var report = function () {
    var globals = Object.getOwnPropertyNames(window).filter(function (n) { return !base.has(n); });
    var body = JSON.stringify({ page: location.pathname, armed: armed, seen: seen.concat(globals.map(function (n) { return 'window: ' + n; })) });
    // A GET: a check's page may send no write (read mode, enforced at the network), and a report is a read to it.
    fetch('/trace?d=' + encodeURIComponent(body), { keepalive: true }).catch(function () {});
  };
  // Armed once the parser is done (what it built is the page's own); reported at once: a check may close the page soon.
  document.addEventListener('DOMContentLoaded', function () {
    // The parser's own insertions may still wait for delivery (records are batched): dropped before arming.
    observer.takeRecords();
    armed = true;
    base = new Set(Object.getOwnPropertyNames(window));
    report();
    setInterval(report, 200);
  });
  window.addEventListener('load', report);
  document.addEventListener('submit', report, true);
  window.addEventListener('pagehide', report);
})();
</script>`;

const PAGE = `<!doctype html><html><head><title>Invoices</title>${DETECTOR}</head><body><nav id="account">Ada</nav><p>Invoices</p></body></html>`;
const LOGIN_PAGE =
  `<!doctype html><html><head><title>Sign in</title>${DETECTOR}</head><body><form method="post" action="/login">` +
  '<label for="u">Username</label><input id="u" name="username"><label for="p">Password</label>' +
  '<input id="p" name="password" type="password"><button type="submit">Sign in</button></form></body></html>';
const PASSWORD = 'invoices-pass';
const PROVIDER_ID = '7b0c1e52-3a57-4c61-9a55-0e3a1c0f5a11';

let live: LiveServer;
const clock = new ManualClock(Date.now());
let org: LiveOrg;
let site: http.Server;
let providersDir = '';
/** What the detector reported, page by page. */
const reports: { page: string; armed: boolean; seen: string[] }[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const where = (req.url ?? '/').split('?')[0];
    if (where === '/trace') {
      reports.push(JSON.parse(new URL(req.url ?? '/', 'http://x').searchParams.get('d') ?? '{}') as (typeof reports)[number]);
      return void res.writeHead(204).end();
    }
    if (where === '/login' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (new URLSearchParams(raw).get('password') !== PASSWORD)
          return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
        res.writeHead(303, { location: '/', 'set-cookie': 'sid=ok; Path=/; HttpOnly' }).end();
      });
      return;
    }
    if (where === '/login') return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
    if (where === '/' && !/(^|; )sid=ok/.test(req.headers.cookie ?? '')) return void res.writeHead(302, { location: '/login' }).end();
    if (where === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const { dir, file } = writeOperatorProviders('agentlink-traces-', [
    { providerId: PROVIDER_ID, name: 'Invoices watched', slug: 'invoices-watched', origin },
  ]);
  providersDir = dir;
  live = await startLiveServer({ clock, env: { AGENTLINK_PROVIDERS_FILE: file } });
  org = await liveOrg(live, 'Watched Sign-in Org');
});

afterAll(async () => {
  await live?.services.browsers.close();
  await live?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  if (providersDir) fs.rmSync(providersDir, { recursive: true, force: true });
});

/** The detector's reports while `act` ran (and the last beacons after it): it ran on `pages`, and saw nothing. */
async function expectNoTraces(pages: string[], act: () => Promise<void>) {
  reports.length = 0;
  await act();
  const armedOn = (page: string) => reports.some((r) => r.page === page && r.armed);
  // Each page's armed report is waited for (one on its way can come late on a loaded machine); the assertion says which.
  await eventually(async () => pages.every(armedOn), Boolean).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300)); // the last beacons (sent as the page went) reach the site
  for (const page of pages) expect(armedOn(page)).toBe(true);
  expect(reports.flatMap((r) => r.seen.map((s) => `${r.page}: ${s}`))).toEqual([]);
}

it('the widget’s sign-in through the login engine leaves no trace on the sign-in page or the page after', async () => {
  const token = await createLinkToken(live.baseUrl, org.headers, { clientUserId: 'watched-widget', providerId: PROVIDER_ID });
  await expectNoTraces(['/login'], async () => {
    const w = widgetSession(live.baseUrl, token);
    expect((await w.start()).status).toBe(200);
    expect((await w.consent()).status).toBe(200);
    const done = await w.credentials('ada', PASSWORD);
    expect({ status: done.status, success: !!done.body.success }).toEqual({ status: 200, success: true });
  });
});

it('a check, and its silent re-login of an ended session, leave no trace either', async () => {
  const caller = { organizationId: org.organizationId, environment: 'sandbox' as const };
  const { connection } = await live.services.connections.create(caller, {
    providerId: PROVIDER_ID,
    clientUserId: 'watched-check',
    session: { cookies: [], origins: [] },
    credentials: { username: 'ada', password: PASSWORD },
  });
  await expectNoTraces(['/login'], async () => {
    clock.advance(3_600_000);
    const res = await api(live, org, 'POST', `/api/connections/${connection.id}/check`);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('RENEWED');
  });
  // Signed in now: a plain check reads the page after sign-in, with the detector on it.
  await expectNoTraces(['/'], async () => {
    clock.advance(3_600_000);
    const res = await api(live, org, 'POST', `/api/connections/${connection.id}/check`);
    expect(res.body.outcome).toBe('SIGNED_IN');
  });
});
