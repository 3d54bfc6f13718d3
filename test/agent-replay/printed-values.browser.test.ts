import type { Browser, Page } from 'playwright-core';

import { isoDayBefore, numberForms, printedNumber, relativeDays } from '../../server/agent/observation/dom/printed.page';
import { planResult, readResult } from '../../server/agent/replay/extraction';
import { startBrowser } from '../support/live-server';

/**
 * Values as pages print them (issue 27): an answer's value binds to its printed form with affixes and units
 * (`v0.9.0` ↔ "0.9.0", `$12.50` ↔ 12.5, `#42` ↔ 42, `12%`, `1,234`, `1.2k`, `3M`, "3 days ago" ↔ a date), and the
 * replay reads it back through the same normalisation, so the replayed answer equals what the model gave — and
 * follows the page when the printed value changes. In real Chromium, through the recorder's planResult and the
 * replay's readResult.
 */
jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

const set = (html: string) => page.setContent(`<!doctype html><html><body>${html}</body></html>`);
const plan = (answer: unknown) => planResult(page, answer, answer, [], { constantsAllowed: false });

const PACKAGE = (v: {
  version: string;
  price: string;
  issue: string;
  share: string;
  downloads: string;
  stars: string;
  users: string;
  updated: string;
}) => `
  <main><h1>left-pad</h1>
    <dl><dt>Latest</dt><dd>v${v.version}</dd><dt>Price</dt><dd>${v.price}/month</dd><dt>Tracking issue</dt><dd><a href="#">${v.issue}</a></dd>
    <dt>Coverage</dt><dd>${v.share} of lines</dd><dt>Weekly downloads</dt><dd>${v.downloads}</dd><dt>Stars</dt><dd>★ ${v.stars}</dd>
    <dt>Dependents</dt><dd>${v.users} projects</dd><dt>Published</dt><dd>${v.updated}</dd></dl></main>`;

describe('values as pages print them', () => {
  it('bind a version, a price, an issue number, a percentage, separators and multipliers, and a relative day', async () => {
    const threeDaysAgo = isoDayBefore(3, new Date());
    await set(
      PACKAGE({
        version: '0.9.0',
        price: '$12.50',
        issue: '#42',
        share: '12%',
        downloads: '1,234,567',
        stars: '1.2k',
        users: '3M',
        updated: '3 days ago',
      }),
    );
    const answer = {
      version: '0.9.0',
      price: 12.5,
      issue: 42,
      coverage: 12,
      downloads: 1234567,
      stars: 1200,
      dependents: 3000000,
      published: threeDaysAgo,
    };
    const res = await plan(answer);
    if (!res.ok) throw new Error(res.reason);
    expect(await readResult(page, res.value, [])).toEqual({ ok: true, value: answer });

    // The next run reads the page as it prints then, through the same normalisation.
    await set(
      PACKAGE({
        version: '0.10.1',
        price: '$9.99',
        issue: '#108',
        share: '87%',
        downloads: '987',
        stars: '23.4k',
        users: '1.5M',
        updated: 'yesterday',
      }),
    );
    expect(await readResult(page, res.value, [])).toEqual({
      ok: true,
      value: {
        version: '0.10.1',
        price: 9.99,
        issue: 108,
        coverage: 87,
        downloads: 987,
        stars: 23400,
        dependents: 1500000,
        published: isoDayBefore(1, new Date()),
      },
    });
  });

  it('a list of versions as printed (v-prefixed) binds to the bare versions the model gave', async () => {
    await set(`<ul aria-label="Versions">${['1.4.0', '1.3.2', '1.3.1'].map((v) => `<li>v${v} <small>stable</small></li>`).join('')}</ul>`);
    const answer = { versions: ['1.4.0', '1.3.2', '1.3.1'] };
    const res = await plan(answer);
    if (!res.ok) throw new Error(res.reason);
    expect(await readResult(page, res.value, [])).toEqual({ ok: true, value: answer });
  });

  it('does not take a value inside a longer word or number', async () => {
    // "vv0.9.0" and "0.9.01" are not the version 0.9.0; "12.505" is not 12.5.
    await set(`<main><p>Tag vv0.9.0</p><p>Build 0.9.01</p><p>Rate 12.505</p></main>`);
    expect(await plan({ version: '0.9.0' })).toEqual({ ok: false, reason: 'version: not found on the page' });
    expect(await plan({ rate: 12.5 })).toEqual({ ok: false, reason: 'rate: not found on the page' });
  });

  it('reads printed numbers and relative days exactly', () => {
    expect([printedNumber('1,234'), printedNumber('1.2k'), printedNumber('2.3k'), printedNumber('3M'), printedNumber('4B')]).toEqual([
      1234, 1200, 2300, 3_000_000, 4_000_000_000,
    ]);
    expect(printedNumber('12 apples')).toBeNaN();
    expect(numberForms(12.5)).toEqual(expect.arrayContaining(['12.5', '12.50']));
    expect(numberForms(1200)).toEqual(expect.arrayContaining(['1,200', '1200', '1.2k', '1.2K']));
    expect([
      relativeDays('today'),
      relativeDays('Yesterday'),
      relativeDays('3 days ago'),
      relativeDays('a day ago'),
      relativeDays('soon'),
    ]).toEqual([0, 1, 3, 1, null]);
  });
});
