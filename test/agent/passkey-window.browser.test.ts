import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { BrowserContext, Page } from 'playwright-core';

import { BrowserManager } from '../../server/browser/browser-manager';
import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice } from '../../server/browser/device-profile';
import { openPasskeyWindow } from '../../server/browser/webauthn-environment';
import { loadConfig } from '../../server/config';
import { holdPasskeyCreation, type PasskeyAsk } from '../../server/connect/live/passkey-consent';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';

/**
 * A connection's passkey, with consent: a site's create() waits while the person decides; Allow opens a passkey window
 * on that page only (the connection's device answers, resident key, user verified), Not now lets the call meet the
 * refusing environment. Nothing answers WebAuthn outside a window: not the same page after it, not another tab of the
 * context, not another context (another connection), not a frame of another origin.
 */
jest.setTimeout(60_000);

const RP = 'passkey.localhost';
const OTHER = 'other.localhost';
let site: http.Server;
let port = 0;
let browsers: BrowserManager;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const frame = new URL(req.url ?? '/', 'http://x').searchParams.get('frame');
    const body = frame
      ? `<!doctype html><title>p</title><iframe src="${frame}" allow="publickey-credentials-get *"></iframe>`
      : '<!doctype html><title>p</title>';
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

async function contextWithPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browsers.newContext();
  contexts.push(context);
  const page = await context.newPage();
  return { context, page };
}

/** A passkey registration as sites ask for one (resident key, user verified); its outcome and the credential's id. */
function register(rpId: string): Promise<string> {
  return navigator.credentials
    .create({
      publicKey: {
        challenge: new Uint8Array(32),
        rp: { name: 'Site', id: rpId },
        user: { id: new Uint8Array([1, 2, 3]), name: 'ada', displayName: 'Ada' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      },
    })
    .then(
      (c) => `created ${(c as PublicKeyCredential).id}`,
      (e: Error) => e.name,
    );
}

function signIn(rpId: string): Promise<string> {
  return navigator.credentials.get({ publicKey: { challenge: new Uint8Array(32), rpId, userVerification: 'required' } }).then(
    (c) => `signed in ${(c as PublicKeyCredential).id}`,
    (e: Error) => e.name,
  );
}

it('holds create() for the person: Allow gives the site a passkey from the connection’s device, Not now a NotAllowedError', async () => {
  const { context, page } = await contextWithPage();
  const asks: PasskeyAsk[] = [];
  let asked!: () => void;
  await holdPasskeyCreation(context, (ask) => (asks.push(ask), asked()));
  await page.goto(`http://${RP}:${port}/`);

  const waitForAsk = () => new Promise<void>((r) => (asked = r));
  let nextAsk = waitForAsk();
  const first = page.evaluate(register, RP);
  await nextAsk;
  expect(asks[0].host).toBe(RP);
  const credential = await asks[0].allow();
  const outcome = await first;
  expect(outcome).toBe(`created ${Buffer.from(credential!.credentialId, 'base64').toString('base64url')}`);
  expect(credential).toMatchObject({ rpId: RP, isResidentCredential: true });
  expect(credential!.privateKey.length).toBeGreaterThan(100);

  // The window closed with that call: the page's next create() waits again, and Not now refuses it.
  nextAsk = waitForAsk();
  const second = page.evaluate(register, RP);
  await nextAsk;
  await asks[1].decline();
  expect(await second).toBe('NotAllowedError');
  // The credential left the page with the window: a sign-in finds nothing to sign with.
  expect(await page.evaluate(signIn, RP)).toBe('NotAllowedError');
  // A second answer to an ask decides nothing.
  expect(await asks[0].allow()).toBeNull();
});

it('holds create() in a connection’s device context too, whose console says nothing to DevTools but the hold’s ask', async () => {
  const policy = EgressPolicy.forProvider({ name: 'Passkeys', homeUrl: `http://${RP}:${port}/`, allowedOrigins: [RP] }, 'sandbox');
  const identity = deviceIdentity(chooseDevice('conn-passkey-device', await browsers.browserVersion()));
  const context = await openFencedContext(browsers, { policy, onBlocked: () => undefined, identity });
  contexts.push(context);
  const page = await openPage(context);
  const asks: PasskeyAsk[] = [];
  let asked!: () => void;
  const nextAsk = new Promise<void>((r) => (asked = r));
  await holdPasskeyCreation(context, (ask) => (asks.push(ask), asked()));
  const logged: string[] = [];
  page.on('console', (m) => logged.push(m.type() + ' ' + m.text()));
  await page.goto(`http://${RP}:${port}/`);
  // The page's own console.debug, like its log, reaches no DevTools session; the hold's ask still does.
  await page.evaluate(() => (console.debug('page'), console.log('page')));
  // The hold reads as the built-in it stands in front of.
  expect(
    await page.evaluate(() => [Function.prototype.toString.call(navigator.credentials.create), navigator.credentials.create.length]),
  ).toEqual(['function create() { [native code] }', 0]);
  const outcome = page.evaluate(register, RP);
  await nextAsk;
  await asks[0].decline();
  expect(await outcome).toBe('NotAllowedError');
  // The ask, alone of the console's messages (the browser's own warnings are not the page's console).
  expect(logged.filter((m) => !m.startsWith('warning '))).toEqual([expect.stringMatching(/^debug /)]);
});

it('answers only in the page its window is on: another tab, another context and a frame of another origin are refused', async () => {
  const mine = await contextWithPage();
  const other = await contextWithPage();
  const tab = await mine.context.newPage();
  for (const p of [mine.page, tab, other.page])
    await p.goto(`http://${RP}:${port}/?frame=${encodeURIComponent(`http://${OTHER}:${port}/`)}`);

  // Attack: a credential of the connection loaded for a sign-in; everyone else asks at the same time.
  const setup = await openPasskeyWindow(mine.page);
  const created = await mine.page.evaluate(register, RP);
  const [credential] = await setup.credentials();
  await setup.close();
  expect(created).toMatch(/^created /);

  const window = await openPasskeyWindow(mine.page, credential);
  try {
    const crossOrigin = mine.page.frames().find((f) => f.url().startsWith(`http://${OTHER}:`))!;
    expect(await crossOrigin.evaluate(signIn, RP)).toMatch(/SecurityError|NotAllowedError/);
    expect(await tab.evaluate(signIn, RP)).toBe('NotAllowedError');
    expect(await other.page.evaluate(signIn, RP)).toBe('NotAllowedError');
    expect(await other.page.evaluate(register, RP)).toBe('NotAllowedError');
    expect(await mine.page.evaluate(signIn, RP)).toMatch(/^signed in /);
  } finally {
    await window.close();
  }
  expect(await mine.page.evaluate(signIn, RP)).toBe('NotAllowedError');
});
