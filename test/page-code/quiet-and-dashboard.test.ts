import type domQuiet from '../../server/browser/page-quiet.page';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { pageBundle } from '../../server/page-code/page-bundle';
import { pageFunction } from '../../server/page-code/page-function';
import { usePage } from './page-rig';

/**
 * page-quiet's tracker in the page (server/browser/page-quiet.page.ts) and the dashboard's script
 * (server/dashboard/dashboard.page.ts), bundled, in real Chromium.
 */
jest.setTimeout(60_000);

const rig = usePage();
const quiet = pageFunction<typeof domQuiet>(PAGE_ENTRIES.pageQuiet);

describe('the DOM quiet tracker', () => {
  it('resolves true once the DOM has stayed unchanged for the lead', async () => {
    const page = await rig.set('<p>Still</p>');
    // Bundled before the clock starts: the first use runs esbuild, which says nothing of the tracker's own wait.
    pageBundle(PAGE_ENTRIES.pageQuiet);
    // true is the quiet found; running out of maxMs answers false (below), whatever the machine's speed.
    expect(await page.evaluate(quiet, { quietMs: 30, leadMs: 60, maxMs: 10_000 })).toBe(true);
  });

  it('waits out a change, then quietMs of stillness after it', async () => {
    const page = await rig.set('<p id="p">Before</p>');
    // The clock starts before the change is scheduled: the change lands 100 ms after that at the earliest, and the
    // tracker answers quietMs after it (or after its lead, had the change come first), however slow the machine.
    const t0 = Date.now();
    await page.evaluate(() => setTimeout(() => (document.getElementById('p')!.textContent = 'After'), 100));
    expect(await page.evaluate(quiet, { quietMs: 30, leadMs: 300, maxMs: 10_000 })).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(await page.textContent('#p')).toBe('After');
  });

  it('resolves false at maxMs on a page that never stops changing', async () => {
    const page = await rig.set('<p id="t">0</p>');
    await page.evaluate(() => setInterval(() => (document.getElementById('t')!.textContent = String(Date.now())), 5));
    const t0 = Date.now();
    expect(await page.evaluate(quiet, { quietMs: 50, leadMs: 50, maxMs: 300 })).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });
});

describe('the dashboard script', () => {
  /** A page with a copy button, a stand-in clipboard (or none) and the bundled script. */
  async function copyPage(secure: boolean) {
    const page = await rig.set(`<code>abc</code><button data-copy="secret-value">Copy</button>`);
    await page.evaluate((secure) => {
      const copied: string[] = [];
      Object.assign(window, { copied });
      Object.defineProperty(window, 'isSecureContext', { value: secure, configurable: true });
      Object.defineProperty(navigator, 'clipboard', {
        value: { writeText: (v: string) => (copied.push(v), Promise.resolve()) },
        configurable: true,
      });
      // Without the clipboard API the script copies the selected text of a hidden text area.
      document.execCommand = (command: string) => (
        command === 'copy' && copied.push(String(getSelection() || (document.activeElement as HTMLTextAreaElement).value)),
        true
      );
    }, secure);
    await page.addScriptTag({ content: pageBundle(PAGE_ENTRIES.dashboard) });
    return page;
  }

  it.each([
    ['the clipboard API', true],
    ['a hidden text area (plain http)', false],
  ])('copies a data-copy value on click through %s, and says so on the button', async (_, secure) => {
    const page = await copyPage(secure);
    await page.click('button');
    await page.waitForFunction(() => document.querySelector('button')!.textContent === 'Copied', undefined, { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { copied: string[] }).copied)).toEqual(['secret-value']);
    expect(await page.$$eval('textarea', (t) => t.length)).toBe(0);
    await page.waitForFunction(() => document.querySelector('button')!.textContent === 'Copy', undefined, { timeout: 10_000 });
  });
});
