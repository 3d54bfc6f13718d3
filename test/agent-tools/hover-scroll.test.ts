import { takeSnapshot } from '../../server/agent/observation';
import { html, indexOf, type Run, useRig } from './tools-rig';

/**
 * Menus that open on hover (CSS :hover and a script with a hover-intent delay) and scroll areas inside the page
 * (a message list with its own scroll bar), through the real tools and the planner loop in Chromium.
 */
jest.setTimeout(60_000);

const rig = useRig();

const SHOP = html(
  'Shop',
  `<style>
  .menu { list-style: none; display: flex; gap: 24px; margin: 0; padding: 0; }
  .menu > li { position: relative; }
  .sub { display: none; position: absolute; top: 100%; left: 0; list-style: none; padding: 8px; background: #fff; border: 1px solid #ccc; }
  .has-sub:hover .sub { display: block; }
</style>
<header><nav aria-label="Main"><ul class="menu">
  <li class="has-sub"><a href="/products">Products</a><ul class="sub"><li><a href="/laptops">Laptops</a></li><li><a href="/phones">Phones</a></li></ul></li>
  <li><span id="account" tabindex="0" role="button">Account</span><div id="account-menu" hidden><a href="/orders">Orders</a></div></li>
</ul></nav></header>
<main><h1>Welcome</h1><p>Shop by category.</p><button type="button" id="gone">Limited offer</button></main>`,
  `var trigger = document.getElementById('account'), menu = document.getElementById('account-menu'), timer;
   trigger.addEventListener('mouseenter', function () { clearTimeout(timer); timer = setTimeout(function () { menu.hidden = false; }, 150); });
   trigger.parentElement.addEventListener('mouseleave', function () { clearTimeout(timer); timer = setTimeout(function () { menu.hidden = true; }, 300); });`,
);

const MESSAGES = html(
  'Inbox',
  `<main><h1>Inbox</h1>
  <section aria-label="Messages"><div id="list" role="log" aria-label="Message list" tabindex="0" style="height:200px;overflow:auto;border:1px solid #999">
  ${Array.from({ length: 40 }, (_, i) => `<p>Message ${i + 1}</p>`).join('')}
  </div></section>
  <h2>Feed</h2>
  <div id="feed" style="height:200px;overflow-y:scroll;border:1px solid #999">
  ${Array.from({ length: 40 }, (_, i) => `<p><a href="/p/${i + 1}">Post ${i + 1}</a></p>`).join('')}
  </div>
  <div id="wide" style="width:300px;overflow-x:auto"><table aria-label="Quarterly figures"><tr>${Array.from({ length: 12 }, (_, i) => `<th style="min-width:120px"><a href="/q/${i + 1}">Column ${i + 1}</a></th>`).join('')}</tr></table></div>
  <p><button type="button">Compose</button></p>
  <div style="height:2400px">Older mail below</div></main>`,
);

/** A page that scrolls itself smoothly, as smooth-scroll libraries do: it takes the wheel and eases there over 600 ms. */
const SMOOTH = html(
  'Journal',
  `<main><h1>Journal</h1><p>Scroll down.</p><div style="height:4000px">Older entries below</div></main>`,
  `var target = 0, easing = false;
   addEventListener('wheel', function (e) {
     e.preventDefault();
     target = Math.max(0, Math.min(document.documentElement.scrollHeight - innerHeight, target + e.deltaY));
     var from = scrollY, start = performance.now();
     if (easing) return;
     easing = true;
     (function step(t) {
       var k = Math.min(1, (t - start) / 600);
       scrollTo(0, from + (target - from) * k);
       if (k < 1) requestAnimationFrame(step); else easing = false;
     })(start);
   }, { passive: false });`,
);

let shop: string;
let inbox: string;
let journal: string;
beforeAll(() => {
  shop = new URL(rig.site.page('/shop', SHOP)).pathname;
  journal = new URL(rig.site.page('/journal', SMOOTH)).pathname;
  rig.site.page('/laptops', html('Laptops', '<h1>Laptops</h1><p>12 models</p>'));
  inbox = new URL(rig.site.page('/inbox', MESSAGES)).pathname;
});

describe('hover', () => {
  it('opens a CSS hover menu and names what appeared; its item can then be clicked', async () => {
    const run = await rig.open(shop);
    const s = await takeSnapshot(run.page);
    expect(s.elements.some((e) => e.name === 'Laptops' && e.role === 'link')).toBe(false);
    const out = await rig.tool(run, 'hover', { index: indexOf(s, 'link', 'Products') }, s);
    expect(out.message).toBe("hovered over link 'Products'; 2 element(s) appeared (their indices are in the next observation):");
    expect(out.quoted).toBe("link 'Laptops'\nlink 'Phones'");
    const after = await takeSnapshot(run.page);
    await rig.tool(run, 'click', { index: indexOf(after, 'link', 'Laptops') }, after);
    await run.page.waitForURL(/\/laptops$/);
  });

  it('opens a scripted menu that waits for hover intent', async () => {
    const run = await rig.open(shop);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'hover', { index: indexOf(s, 'button', 'Account') }, s);
    expect(out.quoted).toBe("link 'Orders'");
  });

  it('says when nothing appeared', async () => {
    const run = await rig.open(shop);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'hover', { index: indexOf(s, 'button', 'Limited offer') }, s);
    expect(out.message).toBe("hovered over button 'Limited offer'; nothing new appeared");
  });

  it('through the planner: hover the menu, click the item that appeared, read the page', async () => {
    const run = await rig.open(shop, { action: 'How many laptop models are there?', responseFormat: { models: 'integer' } });
    rig.model.setScript((t) => {
      const o = t.observation!;
      if (/\/laptops$/.test(o.url))
        return { tool: 'done', args: { success: true, data: { models: Number(/(\d+) models/.exec(o.text)![1]) } } };
      const laptops = o.maybe('link', 'Laptops');
      if (laptops) return { tool: 'click', args: { index: laptops.index } };
      return { tool: 'hover', args: { index: o.find('link', 'Products') } };
    });
    const result = await rig.plan(run);
    expect(result.outcome).toMatchObject({ status: 'completed', result: { models: 12 } });
    expect(result.completion!.steps.map((s) => s.tool)).toEqual(['hover', 'click']);
  });
});

describe('scroll inside a scroll area', () => {
  const scrollTop = (run: Run, id = 'list') => run.page.locator(`#${id}`).evaluate((e) => e.scrollTop);
  const pageY = (run: Run) => run.page.evaluate(() => window.scrollY);

  it('scrolls the area by its index, down to its end, and says so; the page stays put', async () => {
    const run = await rig.open(inbox);
    let s = await takeSnapshot(run.page);
    const list = indexOf(s, 'log', 'Message list');
    const first = await rig.tool(run, 'scroll', { index: list, direction: 'down' }, s);
    expect(first.message).toMatch(/^scrolled log 'Message list' down: now 160 of \d+ px, more below$/);
    expect(await scrollTop(run)).toBe(160);
    let last = first;
    for (let i = 0; i < 20 && !/at the bottom|did not move/.test(last.message); i++) {
      s = await takeSnapshot(run.page);
      last = await rig.tool(run, 'scroll', { index: indexOf(s, 'log', 'Message list'), direction: 'down' }, s);
    }
    expect(last.message).toMatch(/, at the bottom$/);
    s = await takeSnapshot(run.page);
    const stuck = await rig.tool(run, 'scroll', { index: indexOf(s, 'log', 'Message list'), direction: 'down' }, s);
    expect(stuck.message).toBe("scrolled log 'Message list' down: it did not move: already at the bottom");
    s = await takeSnapshot(run.page);
    const up = await rig.tool(run, 'scroll', { index: indexOf(s, 'log', 'Message list'), direction: 'up' }, s);
    expect(up.message).toMatch(/more above$/);
    expect(await pageY(run)).toBe(0);
  });

  it('scrolls the area around an element inside it that is in view', async () => {
    const run = await rig.open(inbox);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'scroll', { index: indexOf(s, 'link', 'Post 2'), direction: 'down' }, s);
    expect(out.message).toMatch(/^scrolled the scroll area around link 'Post 2' down: now 160 of \d+ px, more below$/);
    expect(await scrollTop(run, 'feed')).toBe(160);
    expect(await pageY(run)).toBe(0);
  });

  it('brings an element hidden in the area into view', async () => {
    const run = await rig.open(inbox);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'scroll', { index: indexOf(s, 'link', 'Post 40') }, s);
    expect(out.message).toBe("scrolled link 'Post 40' into view");
    expect(await scrollTop(run, 'feed')).toBeGreaterThan(1000);
  });

  it('scrolls a wide table sideways', async () => {
    const run = await rig.open(inbox);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'scroll', { index: indexOf(s, 'link', 'Column 1'), direction: 'right' }, s);
    expect(out.message).toMatch(/^scrolled the scroll area around link 'Column 1' right: now 240 of \d+ px, more to the right$/);
    expect(await run.page.locator('#wide').evaluate((e) => e.scrollLeft)).toBe(240);
  });

  it('scrolls the page for an element in no scroll area, and the page without index', async () => {
    const run = await rig.open(inbox);
    let s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'scroll', { index: indexOf(s, 'button', 'Compose'), direction: 'down' }, s);
    expect(out.message).toBe("button 'Compose' has no scroll area of its own; scrolled the page down");
    expect(await pageY(run)).toBeGreaterThan(0);
    const y = await pageY(run);
    s = await takeSnapshot(run.page);
    await rig.tool(run, 'scroll', { direction: 'down' }, s);
    expect(await pageY(run)).toBeGreaterThan(y);
    expect([await scrollTop(run), await scrollTop(run, 'feed')]).toEqual([0, 0]);
  });

  it('on a page that eases its own scroll, answers once the page is where the scroll ends', async () => {
    const run = await rig.open(journal);
    const s = await takeSnapshot(run.page);
    const out = await rig.tool(run, 'scroll', { direction: 'down' }, s);
    expect(out.message).toBe('scrolled down');
    // 0.8 of the viewport's height: where the page's own easing ends, 600 ms after the wheel.
    expect(await pageY(run)).toBe(Math.round(0.8 * run.page.viewportSize()!.height));
  });
});
