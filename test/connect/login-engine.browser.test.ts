import { authenticator } from 'otplib';

import { LoginEngine, type LoginInput, type LoginOutcome, type StorageState } from '../../server/connect/login-engine';
import { watchSettled } from '../../server/connect/login-page';
import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { ProviderDefinition } from '../../server/providers/catalogue';
import { sessionCookieName, tenantFor } from '../../server/sandbox/site-sessions';
import { SANDBOX_SMS_CODE, SANDBOX_TOTP_SECRET } from '../../server/sandbox/test-users';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { eventually } from './live-sign-in-support';

/**
 * The login engine against the simulated providers' real sign-in pages (Orbit and ForgeHub share the kit's
 * login), in Chromium, for every sandbox test user. A captured storage state must open the site signed in,
 * in the organization's own copy of the site.
 */
jest.setTimeout(60_000);

let server: LiveServer;
let organizationId: string;

beforeAll(async () => {
  server = await startLiveServer();
  organizationId = (await server.services.organizations.create('Engine Test Org')).organization.id;
});

afterAll(async () => {
  await server?.services.loginEngine.close();
  await server?.services.browsers.close();
  await server?.close();
});

const engine = () => server.services.loginEngine;
const provider = (id: string) => server.services.catalogue.get(id, 'sandbox')!;
const PROVIDERS = [
  ['Orbit', ORBIT_PROVIDER_ID],
  ['ForgeHub', FORGEHUB_PROVIDER_ID],
] as const;

let keyCounter = 0;
const key = () => `lses_engine_test_${++keyCounter}`;

function login(p: ProviderDefinition, username: string, password = 'pass_good', extra: Partial<LoginInput> = {}): LoginInput {
  return { provider: p, organizationId, environment: 'sandbox', username, password, ...extra };
}

/** A TOTP code that stays valid until the site checks it. */
async function freshTotp(): Promise<string> {
  // At least 10 s left of the code's 30: the sandbox takes only the current one (no window), and a loaded machine can
  // spend several seconds between here and the site's check.
  if (authenticator.timeRemaining() < 10) await new Promise((r) => setTimeout(r, (authenticator.timeRemaining() + 0.5) * 1000));
  return authenticator.generate(SANDBOX_TOTP_SECRET);
}

function storageOf(outcome: LoginOutcome): StorageState {
  if (outcome.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  return outcome.storageState;
}

/** Opens the site's home page with the captured state: signed in as `displayName`, in the org's tenant. */
async function expectSignedIn(p: ProviderDefinition, state: StorageState, displayName: string) {
  const sid = state.cookies.find((c) => c.name === sessionCookieName(p.slug));
  expect(sid).toBeDefined();
  const session = await server.services.siteSessions.resolve(p.slug, sid!.value);
  expect(session?.tenant).toBe(tenantFor(organizationId));

  const context = await server.services.browsers.newContext({ storageState: state });
  try {
    const page = await context.newPage();
    await page.goto(p.homeUrl);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('link', { name: displayName }).first().waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 10_000 });
  } finally {
    await context.close();
  }
}

describe.each(PROVIDERS)('login engine on %s', (_name, providerId) => {
  it('user_good: signs in, and the captured storage state opens the site signed in', async () => {
    const p = provider(providerId);
    const outcome = await engine().start(key(), login(p, 'user_good'));
    await expectSignedIn(p, storageOf(outcome), 'Grace Goodwin');
    expect(engine().pendingCount).toBe(0);
  });

  it('a wrong password is invalid_credentials, and nothing stays open', async () => {
    const outcome = await engine().start(key(), login(provider(providerId), 'user_good', 'not-the-password'));
    expect(outcome).toEqual({ kind: 'invalid_credentials' });
    expect(engine().pendingCount).toBe(0);
  });

  it('user_locked is locked', async () => {
    expect(await engine().start(key(), login(provider(providerId), 'user_locked', 'anything'))).toEqual({ kind: 'locked' });
  });

  it('user_mfa: asks for the TOTP code, rejects a wrong one (the same step stays open), accepts the right one', async () => {
    const p = provider(providerId);
    const k = key();
    expect(await engine().start(k, login(p, 'user_mfa'))).toEqual({ kind: 'mfa', method: 'totp', rejected: false });
    expect(engine().isWaiting(k)).toBe(true);
    const good = await freshTotp();
    const wrong = good === '000000' ? '111111' : '000000';
    expect(await engine().submitCode(k, wrong)).toEqual({ kind: 'mfa', method: 'totp', rejected: true });
    expect(engine().isWaiting(k)).toBe(true);
    const outcome = await engine().submitCode(k, await freshTotp());
    expect(engine().isWaiting(k)).toBe(false);
    await expectSignedIn(p, storageOf(outcome), 'Milo Fairbanks');
  });

  it('user_sms: asks for the texted code and signs in with 123456', async () => {
    const p = provider(providerId);
    const k = key();
    expect(await engine().start(k, login(p, 'user_sms'))).toEqual({ kind: 'mfa', method: 'sms', rejected: false });
    const outcome = await engine().submitCode(k, SANDBOX_SMS_CODE);
    await expectSignedIn(p, storageOf(outcome), 'Sasha Mendes');
  });

  it('user_captcha: relays the human check, then signs in', async () => {
    const p = provider(providerId);
    const k = key();
    expect(await engine().start(k, login(p, 'user_captcha'))).toEqual({ kind: 'human_check' });
    const outcome = await engine().confirmHuman(k);
    await expectSignedIn(p, storageOf(outcome), 'Cora Chen');
  });
});

describe('login engine: the steps around the happy paths', () => {
  const orbit = () => provider(ORBIT_PROVIDER_ID);

  it('user_captcha with a wrong password: the human check first, then invalid_credentials', async () => {
    const k = key();
    expect(await engine().start(k, login(orbit(), 'user_captcha', 'wrong'))).toEqual({ kind: 'human_check' });
    expect(await engine().confirmHuman(k)).toEqual({ kind: 'invalid_credentials' });
    expect(engine().isWaiting(k)).toBe(false);
  });

  it('five wrong codes end the code step (mfa_failed)', async () => {
    const k = key();
    expect(await engine().start(k, login(orbit(), 'user_sms'))).toMatchObject({ kind: 'mfa', method: 'sms' });
    for (let i = 0; i < 4; i++) expect(await engine().submitCode(k, '000000')).toEqual({ kind: 'mfa', method: 'sms', rejected: true });
    expect(await engine().submitCode(k, '000000')).toEqual({ kind: 'mfa_failed' });
    expect(engine().isWaiting(k)).toBe(false);
  });

  it('hands back what the caller asked it to carry, only with the success', async () => {
    const k = key();
    const carry = { note: 'kept in memory while the code step waits' };
    expect(await engine().start(k, login(orbit(), 'user_sms', 'pass_good', { carry }))).toMatchObject({ kind: 'mfa' });
    const outcome = await engine().submitCode(k, SANDBOX_SMS_CODE);
    expect(outcome).toMatchObject({ kind: 'success', carry });
  });

  it('a cancelled or unknown login is expired; a new start replaces a waiting one', async () => {
    const k = key();
    await engine().start(k, login(orbit(), 'user_mfa'));
    await engine().cancel(k);
    expect(engine().isWaiting(k)).toBe(false);
    expect(await engine().submitCode(k, '123456')).toEqual({ kind: 'expired' });
    expect(await engine().confirmHuman('lses_nobody')).toEqual({ kind: 'expired' });

    await engine().start(k, login(orbit(), 'user_sms'));
    const before = engine().pendingCount;
    await engine().start(k, login(orbit(), 'user_captcha'));
    expect(engine().pendingCount).toBe(before);
    // The waiting step is now the human check: a code is not what it waits for.
    expect(await engine().submitCode(k, '123456')).toEqual({ kind: 'expired' });
    await engine().cancel(k);
  });

  it('a waiting login is dropped after its time (bounded wait), and at most maxPending wait at once', async () => {
    const short = new LoginEngine(server.services.browsers, { pendingTtlMs: 300, maxPending: 1 });
    try {
      expect(await short.start('a', login(orbit(), 'user_sms'))).toMatchObject({ kind: 'mfa' });
      expect(await short.start('b', login(orbit(), 'user_sms'))).toEqual({
        kind: 'unavailable',
        reason: 'too many sign-ins are waiting for an answer',
      });
      await new Promise((r) => setTimeout(r, 700));
      expect(short.pendingCount).toBe(0);
      expect(await short.submitCode('a', SANDBOX_SMS_CODE)).toEqual({ kind: 'expired' });
    } finally {
      await short.close();
    }
  });

  it('hands over a page it does not know once the page stopped changing, without waiting out its step budget', async () => {
    // A budget the test could never wait out, and a shorter stillness than the default 5 s (the live sign-in tests use that).
    const patient = new LoginEngine(server.services.browsers, { stepTimeoutMs: 300_000, settledUnknownMs: 1_000 });
    try {
      expect(await patient.start('device', login(orbit(), 'user_device'))).toEqual({
        kind: 'unknown_step',
        reason: 'the page after signing in was not recognised (it had stopped changing)',
      });
      expect(patient.pendingCount).toBe(1);
    } finally {
      await patient.close();
    }
  });

  it('counts a page as settled only while it stands still: a page that keeps changing never is', async () => {
    const context = await server.services.browsers.newContext();
    try {
      const page = await context.newPage();
      await page.setContent('<main><p>Approve the sign-in on your phone.</p><p id="t">0</p></main>');
      await page.evaluate(() => setInterval(() => (document.getElementById('t')!.textContent = String(Date.now())), 100));
      const ticking = watchSettled(page, 200);
      try {
        // The DOM changes every 100 ms, under the half-second window: however long it is watched, it is never settled.
        await new Promise((r) => setTimeout(r, 1_000));
        expect(ticking.settled()).toBe(false);
        await page.evaluate(() => {
          for (let id = window.setInterval(() => undefined, 1000); id > 0; id--) window.clearInterval(id);
        });
        await eventually(ticking.settled, (v) => v);
      } finally {
        ticking.stop();
      }
    } finally {
      await context.close();
    }
  });

  it('unreachable sign-in pages are unavailable; a page without the form is handed over to the live view', async () => {
    // 5 s: a fresh fenced context's first page must load within one step; a loaded machine took longer than 1.5 s.
    const quick = new LoginEngine(server.services.browsers, { stepTimeoutMs: 5_000 });
    const refused: ProviderDefinition = {
      ...orbit(),
      homeUrl: 'http://127.0.0.1:1/',
      loginUrl: 'http://127.0.0.1:1/login',
      allowedOrigins: ['127.0.0.1'],
    };
    expect(await quick.start('x', login(refused, 'user_good'))).toEqual({
      kind: 'unavailable',
      reason: 'the sign-in page could not be reached',
    });

    // A page without the recipe's form (the service's own health check, on an allowed host).
    const noForm: ProviderDefinition = {
      ...orbit(),
      // Loopback is reachable only on the provider's own host and port: here the service itself is that provider.
      homeUrl: `${server.baseUrl}/`,
      loginUrl: `${server.baseUrl}/healthz`,
      allowedOrigins: ['localhost'],
      loginStartUrl: undefined,
    };
    expect(await quick.start('y', login(noForm, 'user_good'))).toEqual({ kind: 'unknown_step', reason: 'the sign-in form was not found' });
    // The page waits, as it is, for the live view to take it over; then the engine no longer holds it.
    expect(quick.pendingCount).toBe(1);
    const taken = quick.handOver('y');
    expect(taken?.page.url()).toBe(`${server.baseUrl}/healthz`);
    expect(quick.pendingCount).toBe(0);
    expect(quick.handOver('y')).toBeNull();
    await taken?.context.close();

    // A sign-in page outside the provider's allowed domains is never used.
    const elsewhere: ProviderDefinition = { ...orbit(), allowedOrigins: ['example.org'] };
    expect(await quick.start('z', login(elsewhere, 'user_good'))).toEqual({
      kind: 'unavailable',
      reason: 'the sign-in page is outside the provider’s domains',
    });
    expect(quick.pendingCount).toBe(0);
  });
});
