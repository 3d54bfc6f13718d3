import type { Page } from 'playwright-core';

import { captureSession, readyForCapture } from '../../server/browser/session-capture';
import type { ProviderSession } from '../../server/browser/session-format';
import { useStorageSite } from './storage-site-rig';

/**
 * A run's session read back by DevTools alone (session-capture.ts captureByDevTools), and exactly what Playwright's
 * storage state reads: the fast read is taken only where it sees everything that would (one tab watched from its first
 * document; every provider origin the context held or visited shown there; no IndexedDB), and each case that breaks
 * one of those is read by Playwright's storage state, with what only that read would find.
 */
jest.setTimeout(60_000);

/**
 * `/?ls=a:1,b:2&ss=c:3&idb=1&frame=keep2&popup=1&cookie=x:y`: a document that writes those into its own storage (IndexedDB:
 * one database with one record), sets the cookie, and opens an iframe of another host or a popup.
 */
function documentOf(url: URL, port: number): string {
  const pairs = (k: string) =>
    (url.searchParams.get(k) ?? '')
      .split(',')
      .filter(Boolean)
      .map((p) => p.split(':') as [string, string]);
  const frame = url.searchParams.get('frame');
  return `<!doctype html><title>s</title><script>
  ${pairs('ls')
    .map(([k, v]) => `localStorage.setItem(${JSON.stringify(k)}, ${JSON.stringify(decodeURIComponent(v))});`)
    .join('\n')}
  ${pairs('ss')
    .map(([k, v]) => `sessionStorage.setItem(${JSON.stringify(k)}, ${JSON.stringify(decodeURIComponent(v))});`)
    .join('\n')}
  ${pairs('cookie')
    .map(([k, v]) => `document.cookie = ${JSON.stringify(`${k}=${v}; path=/`)};`)
    .join('\n')}
  ${
    url.searchParams.get('idb')
      ? `window.idbDone = new Promise(function (done) {
    var open = indexedDB.open('app', 1);
    open.onupgradeneeded = function () { open.result.createObjectStore('auth'); };
    open.onsuccess = function () {
      var tx = open.result.transaction('auth', 'readwrite');
      tx.objectStore('auth').put('token-1', 'session');
      tx.oncomplete = function () { open.result.close(); done(true); };
    };
  });`
      : 'window.idbDone = Promise.resolve(false);'
  }
  </script><p>Signed in.</p>${frame ? `<iframe src="http://${frame}.localhost:${port}/?ls=in:frame"></iframe>` : ''}`;
}

const rig = useStorageSite((req, port) => documentOf(new URL(req.url ?? '/', 'http://x'), port));

const at = (host: string, query = '') => `http://${host}.localhost:${rig.port}/${query}`;
const origin = (host: string) => `http://${host}.localhost:${rig.port}`;
const keep = (o: string) => /^http:\/\/keep2?\.localhost:\d+$/.test(o);

/** A context opened for a run with `loaded` (as Playwright restores it), its page watched from its first document. */
async function runContext(loaded?: Pick<ProviderSession, 'cookies' | 'origins'>, watch = true): Promise<Page> {
  const context = await rig.newContext(loaded ? { storageState: loaded } : {});
  const page = await context.newPage();
  if (watch) readyForCapture(page, { loadedOrigins: (loaded?.origins ?? []).map((o) => o.origin) });
  return page;
}

/** The capture, and whether it went through Playwright's storage state; then what that storage state reads now. */
async function captured(page: Page) {
  const context = page.context();
  const spy = jest.spyOn(context, 'storageState');
  const session = await captureSession(context, keep);
  const byPlaywright = spy.mock.calls.length > 0;
  spy.mockRestore();
  const reference = await context.storageState({ indexedDB: true });
  return { session, byPlaywright, reference: { cookies: reference.cookies, origins: reference.origins.filter((o) => keep(o.origin)) } };
}

it('reads a one-origin session by DevTools alone, exactly as Playwright reads it', async () => {
  const loaded = { cookies: [], origins: [{ origin: origin('keep'), localStorage: [{ name: 'old', value: 'kept' }] }] };
  const page = await runContext(loaded);
  await page.goto(at('keep', `?ls=a:1,b:${encodeURIComponent('ü☃ <&>')},c:3&ss=s:1&cookie=sid:abc&frame=other`), { waitUntil: 'load' });
  await page.evaluate(() => localStorage.removeItem('c'));
  const { session, byPlaywright, reference } = await captured(page);
  expect(byPlaywright).toBe(false);
  expect({ cookies: session.cookies, origins: session.origins }).toEqual(reference);
  // In the browser's order, which is Playwright's too (the line above).
  expect(session.origins).toEqual([{ origin: origin('keep'), localStorage: expect.any(Array), indexedDB: [] }]);
  expect(session.origins[0]!.localStorage).toHaveLength(3);
  expect(session.origins[0]!.localStorage).toEqual(
    expect.arrayContaining([
      { name: 'old', value: 'kept' },
      { name: 'a', value: '1' },
      { name: 'b', value: 'ü☃ <&>' },
    ]),
  );
  expect(session.sessionStorage).toEqual([{ origin: origin('keep'), items: [{ name: 's', value: '1' }] }]);
  expect(session.cookies.map((c) => `${c.name}=${c.value}`)).toEqual(['sid=abc']);
});

it('reads a provider frame shown in the tab by DevTools too', async () => {
  const page = await runContext();
  await page.goto(at('keep', '?ls=top:1&frame=keep2'), { waitUntil: 'load' });
  const { session, byPlaywright, reference } = await captured(page);
  expect(byPlaywright).toBe(false);
  expect({ cookies: session.cookies, origins: session.origins }).toEqual(reference);
  expect(session.origins.map((o) => o.origin)).toEqual([origin('keep'), origin('keep2')]);
});

describe("falls back to Playwright's storage state, and misses nothing, when DevTools alone would not see everything", () => {
  it('an origin the session was loaded with that the tab no longer shows', async () => {
    const loaded = { cookies: [], origins: [{ origin: origin('keep2'), localStorage: [{ name: 'elsewhere', value: '1' }] }] };
    const page = await runContext(loaded);
    await page.goto(at('keep', '?ls=a:1'), { waitUntil: 'load' });
    const { session, byPlaywright, reference } = await captured(page);
    expect(byPlaywright).toBe(true);
    expect(session.origins).toEqual(reference.origins);
    expect(session.origins.find((o) => o.origin === origin('keep2'))?.localStorage).toEqual([{ name: 'elsewhere', value: '1' }]);
  });

  it('an origin the tab went to and left, after writing there', async () => {
    const page = await runContext();
    await page.goto(at('keep2', '?ls=visited:1'), { waitUntil: 'load' });
    await page.goto(at('keep', '?ls=a:1'), { waitUntil: 'load' });
    const { session, byPlaywright } = await captured(page);
    expect(byPlaywright).toBe(true);
    expect(session.origins.find((o) => o.origin === origin('keep2'))?.localStorage).toEqual([{ name: 'visited', value: '1' }]);
  });

  it('a database in IndexedDB', async () => {
    const page = await runContext();
    await page.goto(at('keep', '?ls=a:1&idb=1'), { waitUntil: 'load' });
    expect(await page.evaluate(() => (window as unknown as { idbDone: Promise<boolean> }).idbDone)).toBe(true);
    const { session, byPlaywright, reference } = await captured(page);
    expect(byPlaywright).toBe(true);
    expect(session.origins).toEqual(reference.origins);
    expect(JSON.stringify(session.origins[0]?.indexedDB)).toContain('token-1');
  });

  it('a second page the context opened', async () => {
    const page = await runContext();
    await page.goto(at('keep', '?ls=a:1'), { waitUntil: 'load' });
    const popup = await page.context().newPage();
    await popup.goto(at('keep2', '?ls=popup:1'), { waitUntil: 'load' });
    await popup.close();
    const { session, byPlaywright } = await captured(page);
    expect(byPlaywright).toBe(true);
    expect(session.origins.find((o) => o.origin === origin('keep2'))?.localStorage).toEqual([{ name: 'popup', value: '1' }]);
  });

  it('a context whose page was not watched from its first document (a sign-in, a check, a context an earlier run used)', async () => {
    const page = await runContext(undefined, false);
    await page.goto(at('keep', '?ls=a:1'), { waitUntil: 'load' });
    const { session, byPlaywright, reference } = await captured(page);
    expect(byPlaywright).toBe(true);
    expect(session.origins).toEqual(reference.origins);
  });
});
