import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type { Request, Response, Router } from 'express';

import { cx } from '../../../sandbox/kit/class-names';
import { html, raw } from '../../../sandbox/kit/html';
import type { SiteAuth } from '../../../sandbox/kit/site';
import { PUBLIC_TENANT } from '../../../sandbox/site-sessions';
import { findTestUser } from '../../../sandbox/test-users';
import { PASSKEY_SCRIPT } from './passkey-script';

export const QUILL_SLUG = 'quill';
/** What the site stores of a passkey (a document of the tenant's copy): never a private key, which only the authenticator has. */
export interface StoredPasskey {
  username: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  [key: string]: unknown;
}
export const PASSKEY_KIND = 'passkey';

const OFFER_KIND = 'passkey_offer';
const CHALLENGE_KIND = 'passkey_challenge';
const OFFER_COOKIE = 'quill_offer';
const CHALLENGE_COOKIE = 'quill_pk';
const RECORD_SECONDS = 5 * 60;
const cookieOpts = { httpOnly: true, sameSite: 'lax' as const, path: '/' };

/**
 * The WebAuthn library, loaded at the first ceremony: it and its ASN.1 stack take about 0.4 s to load, which every
 * process serving the sandbox paid at start (and every test file that builds an app) though few ever see a passkey.
 */
let simpleWebAuthn: Promise<typeof SimpleWebAuthn> | null = null;
const webauthn = () => (simpleWebAuthn ??= import('@simplewebauthn/server'));

/** The relying party is the page's own host (no port): quill.<sandbox suffix>, a *.localhost name locally. */
const rpOf = (req: Request) => {
  const host = req.headers.host ?? '';
  return { rpID: host.replace(/:\d+$/, ''), origin: `${req.protocol}://${host}` };
};

/**
 * Quill's sign-in: a password form, "Sign in with a passkey" (a discoverable credential, so no username is asked), and
 * after the password the usual offer "Sign in faster with a passkey" (Add a passkey / Not now). The ceremonies are the
 * well-kept @simplewebauthn/server's; challenges are single-use records, bound to a cookie of the browser that asked.
 */
export function mountQuillSignIn(router: Router, auth: SiteAuth): void {
  const script = html`<script>${raw(PASSKEY_SCRIPT)}</script>`;
  const status = html`<p id="passkey-status" role="alert" class="${cx('auth-error')}" hidden></p>`;

  const loginPage = (req: Request, res: Response, code: number, error?: string) => {
    const ticket =
      typeof req.body?.tenant_token === 'string'
        ? req.body.tenant_token
        : typeof req.query.tenant_token === 'string'
          ? req.query.tenant_token
          : '';
    const next = auth.safeNext(req.body?.next ?? req.query.next);
    const csrf = auth.preCsrf(req, res);
    auth.authPage(
      res,
      code,
      'Sign in',
      html`<h1 class="${cx('auth-title')}">Sign in to Quill</h1>${error ? html`<p role="alert" class="${cx('auth-error')}">${error}</p>` : ''}${status}
<button type="button" class="${cx('auth-submit')}" data-passkey="sign-in" data-csrf="${csrf}" data-ticket="${ticket}" data-next="${next}">Sign in with a passkey</button>
<p class="${cx('auth-hint')}">or use your password</p>
<form method="post" action="/login" class="${cx('auth-form')}">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="tenant_token" value="${ticket}"><input type="hidden" name="next" value="${next}">
<label for="u">Username or email</label><input id="u" name="username" autocomplete="username">
<label for="p">Password</label><input id="p" name="password" type="password" autocomplete="current-password">
<button type="submit" class="${cx('auth-submit')}">Sign in</button></form>${script}`,
    );
  };

  router.get('/login', (req, res) => loginPage(req, res, 200));

  router.post('/login', async (req, res, next) => {
    try {
      if (!auth.checkPreCsrf(req, res)) return res.redirect(303, '/login');
      const tenant = auth.tenantFromTicket(req.body?.tenant_token) ?? PUBLIC_TENANT;
      const username = String(req.body?.username ?? '').trim();
      const user = findTestUser(username);
      if (!user || user.password === null || user.password !== String(req.body?.password ?? '')) {
        return loginPage(req, res, 401, 'Incorrect username or password.');
      }
      const passkeys = await passkeysOf(auth, tenant, username);
      if (user.behaviour === 'passkey-first' && passkeys.length > 0) {
        return loginPage(req, res, 401, 'This account signs in with a passkey. Choose “Sign in with a passkey”.');
      }
      const nextPath = auth.safeNext(req.body?.next);
      if (!user.behaviour.startsWith('passkey-') || passkeys.length > 0) return auth.startSession(res, username, tenant, nextPath);
      const offer = await auth.records.put(QUILL_SLUG, OFFER_KIND, { username, tenant, next: nextPath }, RECORD_SECONDS);
      res.cookie(OFFER_COOKIE, offer, { ...cookieOpts, maxAge: RECORD_SECONDS * 1000 });
      const csrf = auth.preCsrf(req, res);
      auth.authPage(
        res,
        200,
        'Add a passkey',
        html`<h1 class="${cx('auth-title')}">Sign in faster with a passkey</h1>
<p class="${cx('auth-hint')}">Next time, sign in with your fingerprint, face or screen lock instead of your password.</p>${status}
<button type="button" class="${cx('auth-submit')}" data-passkey="add" data-csrf="${csrf}">Add a passkey</button>
<form method="post" action="/login/passkey-offer/skip"><input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="${cx('auth-submit')}">Not now</button></form>${script}`,
      );
    } catch (err) {
      next(err);
    }
  });

  /** The offer after the password, read from its cookie (single use only when it ends: Add may be retried). */
  const offerOf = async (req: Request, res: Response, take: boolean) => {
    const value = auth.cookies(res)[OFFER_COOKIE] ?? '';
    const offer = take ? await auth.records.take(QUILL_SLUG, OFFER_KIND, value) : await auth.records.get(QUILL_SLUG, OFFER_KIND, value);
    return offer as { username: string; tenant: string; next: string } | null;
  };

  router.post('/login/passkey-offer/skip', async (req, res, next) => {
    try {
      const offer = auth.checkPreCsrf(req, res) ? await offerOf(req, res, true) : null;
      if (!offer) return res.redirect(303, '/login');
      res.clearCookie(OFFER_COOKIE, cookieOpts);
      await auth.startSession(res, offer.username, offer.tenant, offer.next);
    } catch (err) {
      next(err);
    }
  });

  router.post('/passkeys/register/options', async (req, res, next) => {
    try {
      const offer = auth.checkPreCsrf(req, res) ? await offerOf(req, res, false) : null;
      if (!offer) return res.status(400).json({ error: 'Sign in with your password first.' });
      const { rpID } = rpOf(req);
      const existing = await passkeysOf(auth, offer.tenant, offer.username);
      const options = await (
        await webauthn()
      ).generateRegistrationOptions({
        rpName: 'Quill',
        rpID,
        userName: offer.username,
        userDisplayName: findTestUser(offer.username)?.displayName ?? offer.username,
        userID: new TextEncoder().encode(`${offer.tenant}:${offer.username}`),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      const challenge = await auth.records.put(
        QUILL_SLUG,
        CHALLENGE_KIND,
        { challenge: options.challenge, purpose: 'register' },
        RECORD_SECONDS,
      );
      res.cookie(CHALLENGE_COOKIE, challenge, { ...cookieOpts, maxAge: RECORD_SECONDS * 1000 });
      res.json({ options });
    } catch (err) {
      next(err);
    }
  });

  router.post('/passkeys/register/verify', async (req, res, next) => {
    try {
      const offer = auth.checkPreCsrf(req, res) ? await offerOf(req, res, false) : null;
      const challenge = await auth.records.take(QUILL_SLUG, CHALLENGE_KIND, auth.cookies(res)[CHALLENGE_COOKIE] ?? '');
      if (!offer || challenge?.purpose !== 'register') return res.status(400).json({ error: 'Sign in with your password first.' });
      const { rpID, origin } = rpOf(req);
      const verified = await (
        await webauthn()
      )
        .verifyRegistrationResponse({
          response: req.body?.response,
          expectedChallenge: String(challenge.challenge),
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
        })
        .catch(() => null);
      if (!verified?.verified) return res.status(400).json({ error: 'The passkey could not be verified.' });
      const { credential } = verified.registrationInfo;
      await auth.docs(offer.tenant).insert<StoredPasskey>(PASSKEY_KIND, {
        username: offer.username,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
      });
      await auth.records.take(QUILL_SLUG, OFFER_KIND, auth.cookies(res)[OFFER_COOKIE] ?? '');
      res.clearCookie(OFFER_COOKIE, cookieOpts);
      await startSessionJson(res, auth, offer.username, offer.tenant, offer.next);
    } catch (err) {
      next(err);
    }
  });

  router.post('/login/passkey/options', async (req, res, next) => {
    try {
      if (!auth.checkPreCsrf(req, res)) return res.status(400).json({ error: 'Reload the page and try again.' });
      const tenant = auth.tenantFromTicket(req.body?.tenant_token) ?? PUBLIC_TENANT;
      const options = await (
        await webauthn()
      ).generateAuthenticationOptions({ rpID: rpOf(req).rpID, userVerification: 'required', allowCredentials: [] });
      const record = { challenge: options.challenge, purpose: 'sign-in', tenant, next: auth.safeNext(req.body?.next) };
      res.cookie(CHALLENGE_COOKIE, await auth.records.put(QUILL_SLUG, CHALLENGE_KIND, record, RECORD_SECONDS), {
        ...cookieOpts,
        maxAge: RECORD_SECONDS * 1000,
      });
      res.json({ options });
    } catch (err) {
      next(err);
    }
  });

  router.post('/login/passkey/verify', async (req, res, next) => {
    try {
      const challenge = auth.checkPreCsrf(req, res)
        ? await auth.records.take(QUILL_SLUG, CHALLENGE_KIND, auth.cookies(res)[CHALLENGE_COOKIE] ?? '')
        : null;
      if (challenge?.purpose !== 'sign-in') return res.status(400).json({ error: 'Reload the page and try again.' });
      const tenant = String(challenge.tenant);
      const id = String(req.body?.response?.id ?? '');
      const docs = auth.docs(tenant);
      const stored = (await docs.list<StoredPasskey>(PASSKEY_KIND)).find((d) => d.data.credentialId === id);
      if (!stored) return res.status(400).json({ error: 'This passkey is not registered with Quill.' });
      const { rpID, origin } = rpOf(req);
      const verified = await (
        await webauthn()
      )
        .verifyAuthenticationResponse({
          response: req.body.response,
          expectedChallenge: String(challenge.challenge),
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
          credential: {
            id: stored.data.credentialId,
            publicKey: new Uint8Array(Buffer.from(stored.data.publicKey, 'base64url')),
            counter: stored.data.counter,
          },
        })
        .catch(() => null);
      if (!verified?.verified) return res.status(400).json({ error: 'The passkey was not accepted.' });
      await docs.update(stored.id, { ...stored.data, counter: verified.authenticationInfo.newCounter });
      await startSessionJson(res, auth, stored.data.username, tenant, String(challenge.next));
    } catch (err) {
      next(err);
    }
  });
}

async function passkeysOf(auth: SiteAuth, tenant: string, username: string): Promise<StoredPasskey[]> {
  return (await auth.docs(tenant).list<StoredPasskey>(PASSKEY_KIND)).map((d) => d.data).filter((p) => p.username === username);
}

/** The kit starts a session with a redirect; a fetch() caller is told where to go instead (it follows with location). */
async function startSessionJson(res: Response, auth: SiteAuth, username: string, tenant: string, next: string): Promise<void> {
  const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
  (res as unknown as { redirect: (status: number, url: string) => void }).redirect = (_status, url) => void res.json({ redirect: url });
  try {
    await auth.startSession(res, username, tenant, next);
  } finally {
    (res as unknown as { redirect: typeof redirect }).redirect = redirect;
  }
}
