import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { BrowserContext, Page } from 'playwright-core';

import { BrowserManager } from '../../server/browser/browser-manager';
import { releasePageSession } from '../../server/browser/webauthn-environment';
import { loadConfig } from '../../server/config';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';

/**
 * No page can take the shared browser down through WebAuthn. This headless Chromium has no authenticator: a
 * navigator.credentials call on a page without a DevTools WebAuthn environment kills the whole browser (every live
 * sign-in, run and check of the process). Every context of the BrowserManager gets one on every page, so create() and
 * get() end with NotAllowedError at once, in the page, in a frame of another origin, in a popup; the browser and the
 * other sessions live on.
 */
jest.setTimeout(60_000);

const RP = 'passkey.localhost';
const OTHER = 'other.localhost';

/** Every shape of call a site makes: registration (platform, roaming, resident key), sign-in (by id, by transports, discoverable). */
function callAll(rpId: string): Promise<string[]> {
  const challenge = new Uint8Array(32);
  const id = new Uint8Array(16);
  const user = { id: new Uint8Array(8), name: 'ada', displayName: 'Ada' };
  const pubKeyCredParams = [
    { type: 'public-key' as const, alg: -7 },
    { type: 'public-key' as const, alg: -257 },
  ];
  const create = (authenticatorSelection: AuthenticatorSelectionCriteria) =>
    navigator.credentials.create({
      publicKey: { challenge, rp: { name: 'Site', id: rpId }, user, pubKeyCredParams, authenticatorSelection },
    });
  const get = (allowCredentials?: PublicKeyCredentialDescriptor[]) =>
    navigator.credentials.get({ publicKey: { challenge, rpId, allowCredentials, userVerification: 'preferred' } });
  const calls = [
    () => create({}),
    () => create({ authenticatorAttachment: 'platform', residentKey: 'required', userVerification: 'required' }),
    () => create({ authenticatorAttachment: 'cross-platform', userVerification: 'discouraged' }),
    () => get([{ type: 'public-key', id }]),
    () => get([{ type: 'public-key', id, transports: ['internal'] }]),
    () => get([{ type: 'public-key', id, transports: ['usb', 'nfc', 'ble', 'hybrid'] }]),
    () => get(),
  ];
  // One after another, as a page would: Chromium runs one WebAuthn request per page at a time.
  return calls.reduce<Promise<string[]>>(
    async (done, call) => [
      ...(await done),
      await call().then(
        () => 'resolved',
        (e: Error) => e.name,
      ),
    ],
    Promise.resolve([]),
  );
}

const PAGE = `<!doctype html><title>passkeys</title><p>passkeys</p>`;
/** A popup that calls at once on load and reports to its opener. */
const POPUP = `<!doctype html><title>popup</title><script>
  (${callAll.toString()})(${JSON.stringify(RP)}).then((r) => opener.postMessage(r, '*'));
</script>`;

let site: http.Server;
let port = 0;
let browsers: BrowserManager;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const body = req.url?.startsWith('/popup') ? POPUP : PAGE;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browsers = new BrowserManager(loadConfig().browser);
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
  await browsers?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

async function fencedPage(): Promise<Page> {
  const policy = EgressPolicy.forProvider({ name: 'Passkey site', homeUrl: `http://${RP}:${port}/`, allowedOrigins: [RP] }, 'sandbox');
  const context = await openFencedContext(browsers, { policy, onBlocked: () => undefined });
  contexts.push(context);
  const page = await openPage(context);
  await page.goto(`http://${RP}:${port}/`);
  return page;
}

const REFUSED = Array<string>(7).fill('NotAllowedError');

it('ends every create() and get() of a page with NotAllowedError at once; the browser and another session live on', async () => {
  const bystander = await fencedPage();
  const page = await fencedPage();
  expect(await page.evaluate(callAll, RP)).toEqual(REFUSED);
  expect(await bystander.evaluate(() => document.title)).toBe('passkeys');
  // A second round on the same page: the environment stays for the page's life.
  expect(await page.evaluate(callAll, RP)).toEqual(REFUSED);
  // Conditional mediation (passkey autofill on a login form) ends too, instead of waiting for a pick that never comes.
  const conditional = await page.evaluate(
    (rpId) =>
      navigator.credentials.get({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(32), rpId } }).then(
        () => 'resolved',
        (e: Error) => e.name,
      ),
    RP,
  );
  expect(conditional).toBe('NotAllowedError');
});

it('keeps the environment when the live view or the approval frame keeper lets go of its session on the page', async () => {
  const bystander = await fencedPage();
  const page = await fencedPage();
  // Chromium drops a page's environment when any session of the page detaches (it crashed the browser here): the
  // sessions the live view and the frame keeper open are let go of with releasePageSession, never detached.
  const other = await page.context().newCDPSession(page);
  await other.send('Page.startScreencast', { format: 'jpeg', maxWidth: 100, maxHeight: 100 });
  await releasePageSession(other);
  expect(await page.evaluate(callAll, RP)).toEqual(REFUSED);
  expect(await bystander.evaluate(() => document.title)).toBe('passkeys');
});

it('covers a frame of another origin (its page’s environment)', async () => {
  // Unfenced (the fence lets only the provider's home be local): every context of the manager has the environment.
  const context = await browsers.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://${RP}:${port}/`);
  const frameUrl = `http://${OTHER}:${port}/frame`;
  await page.evaluate((src) => {
    const frame = document.createElement('iframe');
    frame.allow = 'publickey-credentials-get; publickey-credentials-create';
    frame.src = src;
    document.body.append(frame);
    return new Promise((r) => (frame.onload = r));
  }, frameUrl);
  const frame = page.frames().find((f) => f.url() === frameUrl);
  if (!frame)
    throw new Error(
      page
        .frames()
        .map((f) => f.url())
        .join(' '),
    );
  // The frame asks for its own origin's RP ID (allowed by the frame's permissions) and for the top page's (refused by the browser's RP ID check).
  const inFrame = await frame.evaluate(callAll, OTHER);
  expect(inFrame).toHaveLength(7);
  for (const outcome of inFrame) expect(outcome).toMatch(/^(NotAllowedError|SecurityError)$/);
  const asTop = await frame.evaluate(callAll, RP);
  expect(asTop.slice(3)).toEqual(Array(4).fill('SecurityError'));
  for (const outcome of asTop) expect(outcome).toMatch(/^(NotAllowedError|SecurityError)$/);
});

// The gap left (README): Chromium releases a new tab or popup when ANY auto-attached DevTools client lets it run, and
// Playwright sends its release in the same batch as its set-up of the page, so a popup's own script races the
// environment our client sends at the same moment. Measured: with our environment delayed 1.5 s, the popup's create()
// crashes the browser every time; unchanged, 1 crash in 6 runs of this file beside three busy CPU loops (and once a
// create() resolved on a partial environment). The empty popup below is the same race with no navigation at all.
// Enable both once a page is held until its environment is in place.
it.skip('covers a popup the page opens (its own environment), its script calling WebAuthn on load', async () => {
  const context = await browsers.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://${RP}:${port}/`);
  const fromPopup = page.evaluate(
    (src) =>
      new Promise<string[]>((resolve) => {
        addEventListener('message', (e: MessageEvent<string[]>) => resolve(e.data), { once: true });
        open(src);
      }),
    `http://${RP}:${port}/popup`,
  );
  expect(await fromPopup).toEqual(REFUSED);
  expect(await page.evaluate(() => document.title)).toBe('passkeys');
});

it.skip('covers an empty popup the page calls WebAuthn in at once (open(""), then create()/get() in it, in one task)', async () => {
  const bystander = await fencedPage();
  const page = await fencedPage();
  // The popup never navigates: its initial empty document (the opener's origin) runs the opener's script in the same task.
  const inPopup = await page.evaluate(
    ([source, rpId]) => {
      const popup = open('') as (Window & { eval(code: string): Promise<string[]> }) | null;
      if (!popup) return Promise.resolve(['no popup']);
      return popup.eval(`(${source})(${JSON.stringify(rpId)})`);
    },
    [callAll.toString(), RP] as const,
  );
  expect(inPopup).toEqual(REFUSED);
  expect(await bystander.evaluate(() => document.title)).toBe('passkeys');
});
