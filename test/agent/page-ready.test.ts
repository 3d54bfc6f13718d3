import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { ChatClient } from '../../server/agent/model/chat-client';
import { runPlanner } from '../../server/agent/planner/loop';
import type { RunContext } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import * as isolatedWorld from '../../server/browser/isolated-world';
import { waitForReady } from '../../server/browser/page-ready';
import type { ProviderDefinition } from '../../server/providers/provider';
import { startBrowser } from '../support/live-server';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';

/**
 * Ready pages: single-page apps that answer with an empty shell and render later (after a fetch, after a route
 * transition, after a timer, behind a loading indicator) are observed only once they have drawn their content; a page
 * that never settles costs the budget and the observation says it may still be loading.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let origin: string;
let model: ScriptedModelServer;
const contexts: BrowserContext[] = [];

const doc = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>App</title></head><body>${body}</body></html>`;
const CHROME = '<header><a href="/">Registry</a></header>';
const FOOTER = '<footer>Powered by an app</footer>';

const FIXTURES: Record<string, string> = {
  static: doc(`${CHROME}<main><h1>Packages</h1><p>left-pad</p></main>${FOOTER}`),
  // Fetch, then render (the shell has the chrome only, as the registry UI's first observation did).
  'spa-fetch': doc(
    `<div id="root">${CHROME}<main id="m"></main>${FOOTER}</div><script>` +
      `fetch('/api/packages').then(r=>r.json()).then(d=>{document.getElementById('m').innerHTML='<h1>Packages</h1><ul>'+d.map(p=>'<li>'+p+'</li>').join('')+'</ul>'})` +
      `</script>`,
  ),
  // An empty root (the flow editor: URL and Title only), a route transition (pushState), then a fetch and a render.
  'spa-route': doc(
    `<div id="root"></div><script>setTimeout(function(){history.pushState({}, '', '/spa-route/flows');` +
      `setTimeout(function(){fetch('/api/flows').then(r=>r.json()).then(d=>{document.getElementById('root').innerHTML=` +
      `'<nav>Menu</nav><main><h1>Flows</h1>'+d.map(f=>'<button>'+f+'</button>').join('')+'</main>'})},60)},40)</script>`,
  ),
  // No request at all: the content comes by a timer, the DOM still meanwhile.
  'spa-timer': doc(
    `<div id="root"></div><script>setTimeout(function(){document.getElementById('root').innerHTML='<main><h1>Dashboard</h1><p>3 flows</p></main>'},400)</script>`,
  ),
  // A loading indicator first.
  'spa-spinner': doc(
    `<main id="m" aria-busy="true"><div role="progressbar"></div><p>Loading…</p></main><script>setTimeout(function(){var m=document.getElementById('m');` +
      `m.removeAttribute('aria-busy');m.innerHTML='<h1>Versions</h1><p>v0.9.0</p>'},350)</script>`,
  ),
  // Content at once, but the provider declares what "drawn" means: the list that arrives later.
  declared: doc(
    `<main><h1>Welcome</h1><div id="list"></div></main><script>setTimeout(function(){document.getElementById('list').innerHTML='<ul id="packages"><li>react</li></ul>'},300)</script>`,
  ),
  // Never settles: the DOM changes every 20 ms forever.
  never: doc(
    `<main><h1>Live prices</h1><p id="t">0</p></main><script>setInterval(function(){var t=document.getElementById('t');t.textContent=String(+t.textContent+1)},20)</script>`,
  ),
};

/** Holds /api/packages until a test releases it (a loaded machine could otherwise answer before the test's first look). */
let packagesHeld: Promise<void> = Promise.resolve();

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const json = (body: unknown, delay: number) =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)), delay);
    if (path === '/api/packages') return void packagesHeld.then(() => json(['left-pad', 'react', 'zod'], 300));
    if (path === '/api/flows') return json(['Flow 1', 'Flow 2'], 250);
    const name = path.replace(/^\/+/, '').split('/')[0]!;
    const html = FIXTURES[name];
    if (!html) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  [browser, model] = await Promise.all([startBrowser(), startScriptedModelServer()]);
});

afterAll(async () => {
  await browser?.close();
  await model?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

/** `documentDone`: also wait for the document's own request to have finished (its end is network activity). */
async function openAt(path: string, opts: { documentDone?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  const response = await page.goto(`${origin}${path}`, { waitUntil: 'domcontentloaded' });
  if (opts.documentDone) await response?.finished();
  return page;
}

describe('waitForReady', () => {
  it('is ready at once on a static page with its content', async () => {
    const page = await openAt('/static');
    expect(await waitForReady(page)).toMatchObject({ ready: true });
  });

  it('waits for a fetch and the render after it', async () => {
    let release!: () => void;
    packagesHeld = new Promise<void>((resolve) => (release = resolve));
    const page = await openAt('/spa-fetch');
    expect(await page.locator('main').innerText()).toBe('');
    release(); // answered 300 ms later: in flight while waitForReady waits
    packagesHeld = Promise.resolve();
    expect(await waitForReady(page)).toMatchObject({ ready: true });
    expect(await page.locator('main').innerText()).toContain('zod');
  });

  it('waits through a route transition (pushState, then a fetch, then a render)', async () => {
    const page = await openAt('/spa-route');
    expect(await waitForReady(page)).toMatchObject({ ready: true });
    expect(page.url()).toBe(`${origin}/spa-route/flows`);
    expect(await page.getByRole('button', { name: 'Flow 2' }).count()).toBe(1);
  });

  it('waits for content a timer draws with no request, and past a loading indicator', async () => {
    const timer = await openAt('/spa-timer');
    expect(await waitForReady(timer)).toMatchObject({ ready: true });
    expect(await timer.locator('main').innerText()).toContain('3 flows');
    const spinner = await openAt('/spa-spinner');
    expect(await waitForReady(spinner)).toMatchObject({ ready: true });
    expect(await spinner.locator('main').innerText()).toContain('v0.9.0');
  });

  it("waits for the provider's readyWhen (a selector, a text) when it declares one", async () => {
    const bySelector = await openAt('/declared');
    expect(await waitForReady(bySelector, { readyWhen: { selector: '#packages' } })).toMatchObject({ ready: true });
    expect(await bySelector.locator('#packages').count()).toBe(1);
    const byText = await openAt('/declared');
    expect(await waitForReady(byText, { readyWhen: { text: 'react' } })).toMatchObject({ ready: true });
    expect(await byText.locator('#packages').count()).toBe(1);
    const absent = await openAt('/static');
    // Busy runs (four jest workers, a CPU burner on each core) answered 'dom' here: the look's answer came back over
    // 250 ms past the budget and was taken for a hung page. The product now allows 1 s (HUNG_AFTER_MS).
    expect(await waitForReady(absent, { readyWhen: { selector: '#nowhere' }, budgetMs: 2_000 })).toMatchObject({
      ready: false,
      pending: 'readyWhen',
    });
  });

  it('gives up after its budget on a page that never settles, and says why', async () => {
    // The document's request over first: on a loaded machine its end could come inside the wait and be what is pending.
    const page = await openAt('/never', { documentDone: true });
    const r = await waitForReady(page, { budgetMs: 700 });
    expect(r).toMatchObject({ ready: false, pending: 'dom' });
    expect(r.waitedMs).toBeGreaterThanOrEqual(650);
  });

  it("takes a look's answer that comes back late (a loaded machine) for what it says, not for a hung page", async () => {
    const page = await openAt('/static', { documentDone: true });
    const evaluate = isolatedWorld.evaluateIsolated;
    // The answer is held 500 ms on its way back, as a busy machine's trip to the page and back has taken.
    const look = jest.spyOn(isolatedWorld, 'evaluateIsolated').mockImplementation(async (p, fn, arg) => {
      const answer = await evaluate(p, fn, arg);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return answer;
    });
    const r = await waitForReady(page, { readyWhen: { selector: '#nowhere' }, budgetMs: 1_000 }).finally(() => look.mockRestore());
    expect(r).toMatchObject({ ready: false, pending: 'readyWhen' });
  });

  it('returns from a page whose script holds its main thread, and says it was still busy', async () => {
    const page = await openAt('/static', { documentDone: true });
    await page.evaluate(
      () =>
        void setTimeout(() => {
          for (;;);
        }, 0),
    );
    // The look never answers: the wait ends (HUNG_AFTER_MS past its budget) instead of hanging the run.
    expect(await waitForReady(page, { budgetMs: 700 })).toMatchObject({ ready: false, pending: 'dom' });
  });

  it("keeps the last look's reason when the budget runs out between two looks", async () => {
    // A loaded machine: the look at the load state that starts the second round takes longer than what is left of
    // the budget. What was seen last is the changing DOM; nothing of the network was seen at all. The first look is
    // made short (its in-page wait told 200 ms instead of the budget's rest), so a second round always comes.
    const page = await openAt('/never', { documentDone: true });
    const waitForLoadState = page.waitForLoadState.bind(page);
    const evaluate = isolatedWorld.evaluateIsolated;
    let looks = 0;
    let loads = 0;
    page.waitForLoadState = async (...args: Parameters<typeof waitForLoadState>) => {
      await waitForLoadState(...args);
      if (++loads > 1) await new Promise((resolve) => setTimeout(resolve, 5_000));
    };
    const look = jest
      .spyOn(isolatedWorld, 'evaluateIsolated')
      .mockImplementation((p, fn, arg: { maxMs: number }) => evaluate(p, fn, ++looks === 1 ? { ...arg, maxMs: 200 } : arg));
    // 4 s: the first round (a load-state look and the short in-page one) fits in it on a loaded machine too.
    const r = await waitForReady(page, { budgetMs: 4_000 }).finally(() => look.mockRestore());
    expect({ looks, loads }).toEqual({ looks: 1, loads: 2 });
    expect(r).toMatchObject({ ready: false, pending: 'dom' });
  });
});

describe('the planner looks only once the page is ready', () => {
  function provider(readyWhen?: ProviderDefinition['readyWhen']): ProviderDefinition {
    return {
      providerId: randomUUID(),
      name: 'Loopback app',
      slug: 'loopback-app',
      category: 'developer',
      environment: 'sandbox',
      homeUrl: `${origin}/static`,
      loginUrl: `${origin}/login`,
      allowedOrigins: [origin],
      logo: '<svg xmlns="http://www.w3.org/2000/svg"/>',
      ...(readyWhen ? { readyWhen } : {}),
    };
  }

  async function firstObservation(path: string, p: ProviderDefinition) {
    const page = await openAt(path);
    const responseFormat = { items: ['string'] };
    const ctx: RunContext = {
      requestId: `areq_${randomUUID()}`,
      owner: { organizationId: 'org_test', environment: 'sandbox' },
      action: 'List the items',
      startingUrl: `${origin}${path}`,
      parameters: {},
      responseFormat,
      mode: 'read',
      resultSchema: compileResponseFormat(responseFormat),
      provider: p,
      context: page.context(),
      page,
      signal: new AbortController().signal,
      deadline: Date.now() + 30_000,
      record: () => undefined,
      integrity: new RunIntegrity(),
      secrets: [],
      ...NO_PERSON,
    };
    const seen: string[] = [];
    model.setScript((turn) => {
      seen.push(turn.lastUser);
      return { tool: 'fail', args: { reason: 'test' } };
    });
    const client = new ChatClient({ baseUrl: model.baseUrl, model: 'scripted-test-model', timeoutMs: 10_000 });
    await runPlanner(ctx, { client });
    return seen[0]!;
  }

  it('shows the fetched content in the first observation, with no loading note', async () => {
    const first = await firstObservation('/spa-fetch', provider());
    expect(first).toContain('left-pad');
    expect(first).not.toContain('may still be loading');
  });

  it('shows the content after a route transition in the first observation', async () => {
    const first = await firstObservation('/spa-route', provider());
    expect(first).toContain('/spa-route/flows');
    expect(first).toContain("button 'Flow 1'");
  });

  it('tells the model, outside the page content, when the page may still be loading', async () => {
    const first = await firstObservation('/never', provider({ selector: '#nowhere' }));
    const note = first.indexOf('The page may still be loading');
    expect(note).toBeGreaterThanOrEqual(0);
    expect(note).toBeLessThan(first.indexOf('<untrusted_page_content'));
  });
});
