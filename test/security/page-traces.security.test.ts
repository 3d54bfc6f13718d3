import type { BrowserContext, Page } from 'playwright-core';

import { Redactor } from '../../server/agent/observation';
import { findTargets } from '../../server/agent/replay/find-target';
import { descriptorOf } from '../../server/agent/replay/trajectory';
import { executeTool } from '../../server/agent/tools';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from '../agent-observation/observation-rig';

/**
 * Issue 36, "nothing of ours in the page": a site's own script that looks for traces of the agent finds none while
 * the agent observes and acts — no attribute set on any element (a MutationObserver on the document, on every shadow
 * root the page makes and on a same-origin frame's document), no element added, and no name added to the window of
 * the page or of the frame (a diff of their own properties, which also shows any binding). The attack stopped: a
 * bot detector reading `[data-agentlink-idx]`, or an observer on attributes, to tell the agent from a person.
 */
jest.setTimeout(90_000);

/** The site's detector, first in the page: it only watches (the page itself changes no attribute and adds no element). */
const DETECTOR = `<script>
(function () {
  var seen = [];
  // what the parser builds is the page's own: the watch counts from the load event on
  var armed = false;
  var own = function (w) { return new Set(Object.getOwnPropertyNames(w)); };
  var watch = function (root, where) {
    new MutationObserver(function (ms) {
      if (armed) ms.forEach(function (m) {
        if (m.type === 'attributes') seen.push(where + ': attribute ' + m.attributeName + ' on ' + m.target.nodeName);
        m.addedNodes.forEach(function (n) { if (n.nodeType === 1) seen.push(where + ': element ' + n.nodeName + ' added'); });
      });
    }).observe(root, { attributes: true, childList: true, subtree: true });
  };
  var attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) { var r = attach.call(this, init); watch(r, 'shadow root'); return r; };
  var base = new Set();
  var frames = [];
  watch(document, 'document');
  window.addEventListener('load', function () {
    armed = true;
    base = own(window);
    var f = document.querySelector('iframe');
    watch(f.contentDocument, 'frame');
    frames.push({ w: f.contentWindow, base: own(f.contentWindow) });
  });
  var added = function (w, b) { return Object.getOwnPropertyNames(w).filter(function (n) { return !b.has(n); }); };
  Object.defineProperty(window, 'siteReport', {
    value: function () {
      return seen.concat(
        added(window, base).filter(function (n) { return n !== 'siteReport'; }).map(function (n) { return 'window: ' + n; }),
        frames.flatMap(function (f) { return added(f.w, f.base).map(function (n) { return 'frame window: ' + n; }); })
      );
    },
  });
})();
</script>`;

const PAGE = `<!doctype html><html><head><title>Account</title>${DETECTOR}</head><body>
<h1>Account</h1>
<section aria-label="Balance"><p>Balance: $120.00</p><p>Last payment: 3 May</p></section>
<button id="pay" style="cursor:pointer">Pay now</button>
<p id="out">nothing yet</p>
<label>Memo <input id="memo"></label>
<label id="cl">Country</label>
<button id="country" aria-haspopup="listbox" aria-labelledby="cl" aria-controls="countries">Choose</button>
<ul id="countries" role="listbox"><li role="option">France</li><li role="option">Germany</li></ul>
<x-card></x-card>
<iframe title="Help" srcdoc="<button onclick=&quot;this.textContent='asked'&quot;>Ask</button>" style="width:300px;height:80px"></iframe>
<script>
document.getElementById('pay').addEventListener('click', function () { document.getElementById('out').textContent = 'paid'; });
document.querySelectorAll('[role=option]').forEach(function (o) {
  o.addEventListener('click', function () { document.getElementById('country').textContent = o.textContent; });
});
customElements.define('x-card', class extends HTMLElement {
  connectedCallback() {
    var r = this.attachShadow({ mode: 'open' });
    r.innerHTML = '<button>Star</button>';
    r.querySelector('button').addEventListener('click', function () { this.textContent = 'Starred'; });
  }
});
</script>
</body></html>`;

/** A page a replay's narrow search reads (no frames, no shadow roots: it would leave those to the snapshot). */
const PLAIN = `<!doctype html><html><head><title>Bills</title>${DETECTOR.replace('watch(f.contentDocument', 'if (!f) return; watch(f.contentDocument')}</head><body>
<button onclick="document.getElementById('out').textContent = 'paid'">Pay now</button><button>Later</button><p id="out">-</p>
</body></html>`;

let rig: Rig;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  rig = await startRig();
  rig.serve('/account', PAGE);
  rig.serve('/plain', PLAIN);
  ({ context, page } = await openPage(rig, '/account'));
});

afterAll(async () => {
  await context?.close();
  await stopRig(rig);
});

const report = () => page.evaluate(() => (window as unknown as { siteReport(): string[] }).siteReport());

it("the site's own detector sees no trace of the agent while it observes, clicks, types, chooses, reads and replays", async () => {
  const { s } = await observe(rig, page);
  const tool = (name: Parameters<typeof executeTool>[0], args: Record<string, unknown>) =>
    executeTool(name, args, toolContext(rig, page, s));
  await tool('click', { index: el(s, 'button', 'Pay now').index });
  await tool('click', { index: el(s, 'button', 'Star').index });
  await tool('click', { index: el(s, 'button', 'Ask').index });
  await tool('type', { index: el(s, 'textbox', 'Memo').index, text: 'rent' });
  await tool('select', { index: el(s, 'button', 'Country').index, option: 'Germany' });
  expect(JSON.stringify(await tool('extract', { index: el(s, 'button', 'Pay now').index }))).toContain('Pay now');
  // The actions happened, in the page, the shadow root and the frame.
  expect(await page.locator('#out').textContent()).toBe('paid');
  expect(await page.locator('#country').textContent()).toBe('Germany');
  expect(await page.locator('x-card').locator('button').textContent()).toBe('Starred');
  expect(await page.frameLocator('iframe').locator('button').textContent()).toBe('asked');
  await observe(rig, page);

  expect(await report()).toEqual([]);

  // The detector is real: one attribute set on an element, and one name on the window, are both seen.
  await page.evaluate(() => {
    document.body.setAttribute('data-probe', '1');
    (window as unknown as Record<string, number>).probe = 1;
  });
  expect(await report()).toEqual(['document: attribute data-probe on BODY', 'window: probe']);
});

it("a replay's narrow search and its click leave no trace either", async () => {
  const plain = await context.newPage();
  await plain.goto(`http://127.0.0.1:${rig.home}/plain`);
  const { s } = await observe(rig, plain);
  const narrow = await findTargets(plain, descriptorOf(el(s, 'button', 'Pay now'), s), new Redactor());
  expect(narrow?.elements).toHaveLength(1);
  await executeTool('click', { index: narrow!.elements[0]!.index }, toolContext(rig, plain, narrow!));
  expect(await plain.locator('#out').textContent()).toBe('paid');
  expect(await plain.evaluate(() => (window as unknown as { siteReport(): string[] }).siteReport())).toEqual([]);
});
