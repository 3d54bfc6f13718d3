import { chromium } from 'playwright-core';

import { elementLocator } from '../../server/agent/observation';
import { ToolError } from '../../server/agent/result/errors';
import { executeTool } from '../../server/agent/tools';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../server/browser/chromium';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from './observation-rig';

/**
 * Open shadow roots and iframes are observed in place: web components (nested, with slots) and frames of the
 * provider's origins show their text and controls where they stand, with index numbers unique across frames
 * that the tools act on; a frame of another origin is one line naming its host.
 */
const STORE = `<!doctype html><html><head><title>Store</title></head><body>
<h1>Mugs</h1>
<product-card name="Blue mug" price="$12.00"><span slot="badge">Bestseller</span></product-card>
<product-card name="Red mug" price="$14.00"></product-card>
<p>Free shipping over $50.</p>
<colour-picker></colour-picker>
<p id="cart">Cart: empty</p>
<script>
customElements.define('product-card', class extends HTMLElement {
  connectedCallback() {
    const r = this.attachShadow({ mode: 'open' });
    r.innerHTML = '<article><h3></h3><slot name="badge"></slot><p class="price"></p>' +
      '<label>Quantity <input type="number" value="1"></label><buy-button>Add to cart</buy-button></article>';
    r.querySelector('h3').textContent = this.getAttribute('name');
    r.querySelector('.price').textContent = this.getAttribute('price');
    r.querySelector('buy-button').addEventListener('click', () => {
      document.getElementById('cart').textContent = 'Cart: ' + r.querySelector('input').value + ' x ' + this.getAttribute('name');
    });
  }
});
customElements.define('colour-picker', class extends HTMLElement {
  connectedCallback() {
    const r = this.attachShadow({ mode: 'open' });
    r.innerHTML = '<span id="l">Glaze</span><button type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="l">Matte</button>' +
      '<ul role="listbox" hidden><li role="option">Matte</li><li role="option">Gloss</li></ul>';
    const b = r.querySelector('button'), list = r.querySelector('ul');
    b.addEventListener('click', () => { list.hidden = !list.hidden; b.setAttribute('aria-expanded', String(!list.hidden)); });
    list.querySelectorAll('li').forEach((o) => o.addEventListener('click', () => { b.textContent = o.textContent; list.hidden = true; b.setAttribute('aria-expanded', 'false'); }));
  }
});
customElements.define('buy-button', class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<button type="button"><slot></slot></button>'; }
});
</script></body></html>`;

const CHECKOUT = `<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1>
<p>Total: $26.00</p>
<iframe id="card" title="Card details" src="/card-form" style="width:400px;height:160px"></iframe>
<iframe id="same" src="http://localhost:HOME/promo" style="width:400px;height:80px"></iframe>
<iframe id="ad" src="http://127.0.0.1:OTHER/ad" style="width:300px;height:80px"></iframe>
<iframe src="/pixel" style="width:0;height:0;border:0"></iframe>
<button type="button">Place order</button>
</body></html>`;

const CARD_FORM = `<!doctype html><html><body>
<label for="num">Card number</label><input id="num" autocomplete="cc-number">
<label for="exp">Expiry month</label><select id="exp"><option>01</option><option>02</option><option>03</option></select>
<div id="pay" style="cursor:pointer">Pay $26.00</div>
<p id="status"></p>
<script>document.getElementById('pay').addEventListener('click', function () {
  document.getElementById('status').textContent = 'Paid with ' + document.getElementById('num').value;
});</script>
</body></html>`;

const PROMO = `<!doctype html><html><body><p>Promo code</p><input aria-label="Code" value="SUMMER"></body></html>`;
const AD = `<!doctype html><html><body><p>Buy now, secret offer</p><button>Claim</button></body></html>`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.serve('/store', STORE);
  rig.serve('/checkout', CHECKOUT);
  rig.serve('/card-form', CARD_FORM);
  rig.serve('/promo', PROMO);
  rig.serve('/ad', AD);
  rig.serve('/pixel', '<!doctype html><p>tracking</p>');
}, 60_000);
afterAll(() => stopRig(rig));

describe('open shadow roots', () => {
  it('walks nested shadow roots in place, slotted content once, and acts on their controls by index', async () => {
    const { context, page } = await openPage(rig, '/store');
    try {
      const { s, text } = await observe(rig, page);
      const body = text.split('\n\n')[1]!;
      expect(body).toMatch(
        /^# Mugs\n-- article --\n### Blue mug\nBestseller\n\$12\.00\n\[\d+\] spinbutton 'Quantity' value='1'\n\[\d+\] button 'Add to cart'\n-- article --\n### Red mug\n\$14\.00\n\[\d+\] spinbutton 'Quantity' value='1'\n\[\d+\] button 'Add to cart'\nFree shipping over \$50\.\nGlaze\n\[\d+\] button 'Glaze' value='Matte' collapsed haspopup=listbox\nCart: empty$/,
      );
      expect(body.match(/Bestseller/g)).toHaveLength(1);

      const buttons = s.elements.filter((e) => e.role === 'button' && e.name === 'Add to cart');
      const quantities = s.elements.filter((e) => e.role === 'spinbutton');
      await executeTool('type', { index: quantities[1]!.index, text: '3' }, toolContext(rig, page, s));
      await executeTool('click', { index: buttons[1]!.index }, toolContext(rig, page, s));
      expect(await page.locator('#cart').textContent()).toBe('Cart: 3 x Red mug');

      const chose = await executeTool('select', { index: el(s, 'button', 'Glaze').index, option: 'Gloss' }, toolContext(rig, page, s));
      expect(chose.message).toBe("chose 'Gloss' in button 'Glaze'");

      // A second look gives fresh numbers, each finding its element; nothing of them is on the page, in shadow roots either.
      const again = await observe(rig, page);
      expect(again.text).toContain('Cart: 3 x Red mug');
      expect(el(again.s, 'button', 'Glaze').value).toBe('Gloss');
      for (const e of again.s.elements) expect(await (await elementLocator(page, e)).count()).toBe(1);
      const attributes = await page.evaluate(() => {
        const names = new Set<string>();
        const walk = (root: Document | ShadowRoot) =>
          root.querySelectorAll('*').forEach((e) => {
            e.getAttributeNames().forEach((n) => names.add(n));
            if (e.shadowRoot) walk(e.shadowRoot);
          });
        walk(document);
        return [...names];
      });
      expect(attributes.filter((n) => /agentlink/i.test(n))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('iframes', () => {
  it("reads frames of the provider's origins in place, names a foreign frame by host, and acts inside frames", async () => {
    const { context, page } = await openPage(rig, '/checkout');
    try {
      const { s, text } = await observe(rig, page);
      expect(text).toMatch(
        /# Checkout\nTotal: \$26\.00\n-- frame 'Card details' --\n\[(\d+)\] textbox 'Card number' value=''\n\[\d+\] combobox 'Expiry month' value='01' options=\['01', '02', '03'\]\n\[(\d+)\] button 'Pay \$26\.00'\nPromo code\n\[\d+\] textbox 'Code' value='SUMMER'\n\(a frame from 127\.0\.0\.1:\d+ was not read: it is not on the provider's site\)\n\[\d+\] button 'Place order'$/,
      );
      expect(text).toContain(`(a frame from 127.0.0.1:${rig.other} was not read`);
      for (const absent of ['secret offer', 'Claim', 'tracking']) expect(text).not.toContain(absent);
      const indices = s.elements.map((e) => e.index);
      expect(new Set(indices).size).toBe(indices.length);
      expect(el(s, 'textbox', 'Card number')).toMatchObject({ frame: [expect.any(Number)], scope: "frame 'Card details'" });
      expect(el(s, 'textbox', 'Code').frame).toHaveLength(1);
      expect(el(s, 'button', 'Place order').frame).toBeUndefined();

      await executeTool('type', { index: el(s, 'textbox', 'Card number').index, text: '4242 4242' }, toolContext(rig, page, s));
      await executeTool('select', { index: el(s, 'combobox', 'Expiry month').index, option: '03' }, toolContext(rig, page, s));
      await executeTool('click', { index: el(s, 'button', 'Pay $26.00').index }, toolContext(rig, page, s));
      expect(await page.frameLocator('#card').locator('#status').textContent()).toBe('Paid with 4242 4242');
      expect(await page.frameLocator('#card').locator('#exp').inputValue()).toBe('03');
      const res = await executeTool('extract', { index: el(s, 'button', 'Pay $26.00').index }, toolContext(rig, page, s));
      expect(res.quoted).toBe('Pay $26.00');

      // The frame goes away between the observation and the action: a tool error the model reads.
      await page.evaluate(() => document.getElementById('card')!.remove());
      const gone = executeTool('click', { index: el(s, 'button', 'Pay $26.00').index }, toolContext(rig, page, s));
      await expect(gone).rejects.toThrow(ToolError);
      await expect(gone).rejects.toThrow(/is no longer on the page \(it was in a frame that changed or went away\)/);
    } finally {
      await context.close();
    }
  });

  it('reads and operates an out-of-process frame (site isolation) through its own session', async () => {
    const isolated = await chromium.launch({ executablePath: await resolveChromiumPath(), args: [...CHROMIUM_ARGS, '--site-per-process'] });
    try {
      const { page } = await openPage(rig, '/checkout', isolated);
      // localhost and 127.0.0.1 are different sites: the promo frame runs in a process of its own.
      expect(page.frames().length).toBeGreaterThanOrEqual(3);
      const { s, text } = await observe(rig, page);
      expect(text).toMatch(/Promo code\n\[\d+\] textbox 'Code' value='SUMMER'/);
      await executeTool('type', { index: el(s, 'textbox', 'Code').index, text: 'WINTER' }, toolContext(rig, page, s));
      const again = await observe(rig, page);
      expect(el(again.s, 'textbox', 'Code').value).toBe('WINTER');
    } finally {
      await isolated.close();
    }
  }, 60_000);
});
