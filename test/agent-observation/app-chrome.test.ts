import fs from 'node:fs';
import path from 'node:path';

import { executeTool } from '../../server/agent/tools';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from './observation-rig';

/**
 * A single-page editor's chrome (test/fixtures/realistic/site/patterns/editor-chrome.html), as real apps write it and
 * as issue 27 saw it on a flow editor: every class in the app's namespace (`ac-ui-…`), icon buttons that show an icon
 * font's glyph and have no name, and an outline sidebar whose tree is one focusable box. Each icon button gets a name
 * that tells it from its siblings (its own id's words, else its glyph's; never the namespace), and the outline's
 * items are listed one by one, each clickable, rather than run together into one button's name.
 */
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'realistic', 'site', 'patterns', 'editor-chrome.html');

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.serve('/editor-chrome.html', fs.readFileSync(FIXTURE, 'utf8'));
}, 60_000);
afterAll(() => stopRig(rig));

describe("an editor's chrome", () => {
  it('names icon buttons by their own id, else their icon font glyph, without the namespace, each told apart', async () => {
    const { context, page } = await openPage(rig, '/editor-chrome.html');
    try {
      const { s, text } = await observe(rig, page);
      const buttons = s.elements.filter((e) => e.role === 'button' && e.nameFrom).map((e) => `${e.name} (${e.nameFrom})`);
      expect(buttons).toEqual([
        'zoom out (class)',
        'zoom zero (class)',
        'zoom in (class)',
        'angle double up (icon)',
        'angle double down (icon)',
      ]);
      expect(text).not.toMatch(/'ac\b|\bac '/);
      await executeTool('click', { index: el(s, 'button', 'zoom out').index }, toolContext(rig, page, s));
      expect(await page.locator('#log').textContent()).toBe('footer ac-ui-view-zoom-out');
    } finally {
      await context.close();
    }
  });

  it("lists an outline tree's items one by one, not as one button named by all of them run together", async () => {
    const { context, page } = await openPage(rig, '/editor-chrome.html');
    try {
      const { s, text } = await observe(rig, page);
      expect(s.elements.find((e) => /Invoice sync.*Sensor alerts/.test(e.name))).toBeUndefined();
      for (const name of ['Flows', 'Invoice sync', 'Sensor alerts', 'Nightly backup', 'Subflows']) expect(text).toContain(name);
      await executeTool('click', { index: el(s, 'button', 'Sensor alerts').index }, toolContext(rig, page, s));
      expect(await page.locator('#log').textContent()).toBe('opened Sensor alerts');
    } finally {
      await context.close();
    }
  });
});
