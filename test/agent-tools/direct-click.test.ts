import type { Page } from 'playwright-core';

import { takeSnapshot } from '../../server/agent/observation';
import { clickDirectly } from '../../server/agent/tools/direct-click';
import { html, indexOf, useRig } from './tools-rig';

/**
 * The click tool's fast path clicks only what it has proven clickable this instant (in the top document, unique,
 * enabled, visible, on screen, not moving, reached by a click at its centre), with trusted mouse input, and guards
 * the click itself. Everything else is `unproven` with nothing clicked, and Playwright's waiting click takes over.
 */
jest.setTimeout(60_000);

const rig = useRig();
/** Far longer than the tool's 400 ms: each test proves a reason for its outcome, never the machine's speed under load. */
const CHECK_MS = 10_000;

const clicks = (page: Page) => page.evaluate(() => (window as unknown as { clicks: string[] }).clicks);

/** A page whose buttons each log a trusted click into window.clicks; `extra` goes into the body first. */
function page(path: string, extra: string, script = ''): string {
  return new URL(
    rig.site.page(
      path,
      html(
        'Direct click',
        `${extra}<main><h1>Direct click</h1><button type="button" id="go">Go</button></main>`,
        `window.clicks = [];
        document.addEventListener('click', function (e) { if (e.isTrusted) window.clicks.push(e.target.id || e.target.tagName); }, true);
        ${script}`,
      ),
    ),
  ).pathname;
}

async function attempt(path: string, before?: (p: Page) => Promise<unknown>) {
  const run = await rig.open(path);
  const s = await takeSnapshot(run.page);
  const el = s.elements.find((e) => e.index === indexOf(s, 'button', 'Go'))!;
  await before?.(run.page);
  return { outcome: await clickDirectly(run.page, el, { checkMs: CHECK_MS }), page: run.page };
}

describe('the fast path clicks', () => {
  it('a still, uncovered button of the top document, with trusted input', async () => {
    const { outcome, page: p } = await attempt(page('/still', ''));
    expect(outcome).toBe('clicked');
    expect(await clicks(p)).toEqual(['go']);
  });

  it('a button whose handler opens confirm(): the dialog is dismissed as for any click, and the tool returns', async () => {
    const { outcome, page: p } = await attempt(
      page(
        '/confirm',
        '',
        "document.getElementById('go').addEventListener('click', function () { window.clicks.push('confirmed:' + confirm('Sure?')); });",
      ),
    );
    expect(outcome).toBe('clicked');
    expect(await clicks(p)).toEqual(['go', 'confirmed:false']);
  });

  it('a link, whose navigation the settle that follows waits for; the click tool says it clicked', async () => {
    rig.site.page('/next', html('Next', '<h1>Next page</h1>'));
    const run = await rig.open(new URL(rig.site.page('/link', html('Link', '<a href="/next">Next page</a>'))).pathname);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'click', { index: indexOf(s, 'link', 'Next page') }, s);
    expect(out.message).toBe("clicked link 'Next page'");
    expect(new URL(run.page.url()).pathname).toBe('/next');
    expect(await run.page.locator('h1').innerText()).toBe('Next page');
  });
});

describe('what it cannot prove is left to the waiting click, with nothing clicked', () => {
  it.each<[string, string, string]>([
    ['covered by an overlay', '<div id="veil" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>', ''],
    ['disabled', '', "document.getElementById('go').disabled = true;"],
    ['inside an aria-disabled group', '', "document.querySelector('main').setAttribute('aria-disabled', 'true');"],
    ['hidden by visibility', '', "document.getElementById('go').style.visibility = 'hidden';"],
    ['below the fold', '<div style="height:3000px"></div>', ''],
    [
      'in a container that is sliding',
      '<style>@keyframes slide { from { transform: translateX(0) } to { transform: translateX(300px) } } main.sliding { animation: slide 5s linear infinite; }</style>',
      "document.querySelector('main').classList.add('sliding');",
    ],
  ])('%s', async (_what, extra, after) => {
    const { outcome, page: p } = await attempt(page(`/case-${_what.replace(/\W+/g, '-')}`, extra), (pg) => pg.evaluate(after));
    expect(outcome).toBe('unproven');
    expect(await clicks(p)).toEqual([]);
  });

  it('moved by script between two frames', async () => {
    const path = page(
      '/moving',
      '',
      "var b = document.getElementById('go'); b.style.position = 'relative'; (function step(t) { b.style.left = (Math.round(t / 16) % 200) + 'px'; requestAnimationFrame(step); })(0);",
    );
    const { outcome, page: p } = await attempt(path);
    expect(outcome).toBe('unproven');
    expect(await clicks(p)).toEqual([]);
  });

  it('no longer in the page (the page replaced the listed element with a copy)', async () => {
    const { outcome, page: p } = await attempt(page('/twins', ''), (pg) =>
      pg.evaluate(() => {
        const go = document.getElementById('go')!;
        go.replaceWith(go.cloneNode(true));
      }),
    );
    expect(outcome).toBe('unproven');
    expect(await clicks(p)).toEqual([]);
  });

  it('inside a shadow root or a frame (Playwright finds those)', async () => {
    rig.site.page('/framed-inner', html('Inner', '<button type="button">Pay</button>'));
    const path = new URL(
      rig.site.page(
        '/hosts',
        html(
          'Hosts',
          '<shop-card></shop-card><iframe src="/framed-inner" title="Payment" width="300" height="100"></iframe>',
          "customElements.define('shop-card', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<button>Add to cart</button>'; } });",
        ),
      ),
    ).pathname;
    const run = await rig.open(path);
    await run.page.frameLocator('iframe').locator('button').waitFor();
    const s = await takeSnapshot(run.page, { egress: rig.policy });
    for (const name of ['Add to cart', 'Pay']) {
      const el = s.elements.find((e) => e.index === indexOf(s, 'button', name))!;
      expect(await clickDirectly(run.page, el, { checkMs: CHECK_MS })).toBe('unproven');
    }
  });

  it('a dialog that covers the element after the check: the guard cancels the click before the page sees it', async () => {
    // The overlay appears when the mouse arrives over the button: after the check, before the button press.
    const path = page(
      '/late-veil',
      '',
      `document.getElementById('go').addEventListener('mousemove', function () {
        if (document.getElementById('veil')) return;
        var v = document.createElement('div'); v.id = 'veil';
        v.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.3)';
        v.addEventListener('mousedown', function () { window.clicks.push('veil-mousedown'); });
        document.body.append(v);
      });`,
    );
    const { outcome, page: p } = await attempt(path);
    expect(outcome).toBe('unproven');
    expect(await clicks(p)).toEqual([]);
    // The guard is gone: a click on the overlay now reaches it.
    await p.mouse.click(5, 5);
    expect(await clicks(p)).toEqual(['veil-mousedown', 'veil']);
  });
});
