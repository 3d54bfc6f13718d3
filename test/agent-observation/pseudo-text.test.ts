import { expressionOf } from '../../server/agent/observation/documents';
import type { RawDoc } from '../../server/agent/observation/dom/snapshot.page';
import { observe, openPage, type Rig, startRig, stopRig } from './observation-rig';

/**
 * CSS ::before/::after text is read in open shadow roots as in the document — rules of the tree itself, a
 * constructed (adopted) sheet, `:host`, `::slotted()`, `::part()` from outside, an @import-ed sheet — while the
 * pseudo-elements' styles are read only for the elements such a rule can reach, not for every element twice.
 */
const CARDS = Array.from(
  { length: 40 },
  (_, i) => `<price-tag ${i % 2 ? 'class="sale"' : ''}><span class="unit">${i + 1}</span></price-tag>`,
);
const PAGE = `<!doctype html><html><head><title>Prices</title><style>
@import url("data:text/css,.imported%3A%3Aafter%7Bcontent%3A%22%20(imported)%22%7D");
price-tag { display: block; }
price-tag::part(caption)::after { content: " (part)"; }
*, *::before, *::after { box-sizing: border-box; }
.note::before { content: "Note: "; }
</style></head><body>
<h1>Prices</h1>
<p class="note">prices include tax</p>
<p class="imported">Shipping</p>
<div id="cards">${CARDS.join('')}</div>
<script>
const sheet = new CSSStyleSheet();
sheet.replaceSync('.fav::before { content: "\\\\2605  Favourite "; }');
customElements.define('price-tag', class extends HTMLElement {
  connectedCallback() {
    const r = this.attachShadow({ mode: 'open' });
    r.adoptedStyleSheets = [sheet];
    r.innerHTML = '<style>:host::before { content: "Price "; } :host(.sale) .tag::after { content: " on sale"; }' +
      '::slotted(.unit)::before { content: "#"; } .plain { color: #333; }</style>' +
      '<span class="fav"></span><span class="tag">EUR</span> <slot></slot> <span part="caption">each</span>' +
      '<span class="plain">incl.</span><span class="plain">VAT</span>' + '<i></i>'.repeat(8);
  }
});
</script></body></html>`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.serve('/prices', PAGE);
}, 60_000);
afterAll(() => stopRig(rig));

describe('::before/::after text', () => {
  it('reads it in shadow roots (own, adopted, :host, ::slotted, ::part) and imported sheets, asking only the elements a rule reaches', async () => {
    const { context, page } = await openPage(rig, '/prices');
    try {
      const { text } = await observe(rig, page);
      expect(text).toContain('Note: prices include tax');
      expect(text).toContain('Shipping (imported)');
      expect(text).toContain('\nPrice \u2605 Favourite EUR #1 each (part)incl.VAT\n');
      expect(text).toContain('\nPrice \u2605 Favourite EUR on sale #2 each (part)incl.VAT\n');
      const raw = (await page.evaluate(expressionOf('snapshot', { listeners: false }))) as RawDoc;
      // what the walk visits in a card's shadow root: the favourite, the tag, the slot, the part, 2 plain spans, 8 <i>
      const visited = 40 * 14;
      // what a rule reaches: the two notes, and per card the host, the favourite, the tag, the slotted unit, the part
      expect(raw.pseudo).toBeGreaterThanOrEqual(2 * (2 + 40 * 5));
      expect(raw.pseudo).toBeLessThanOrEqual(2 * (2 + 40 * 5) + 10);
      expect(raw.pseudo).toBeLessThan(visited);
    } finally {
      await context.close();
    }
  });
});
