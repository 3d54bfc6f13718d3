import { randomBytes } from 'node:crypto';

import type { Express, Request, Response } from 'express';
import { authenticator } from 'otplib';

import { PUBLIC_TENANT } from '../site-sessions';
import type { TenantTokens } from '../tenant-tokens';
import { findTestUser, SANDBOX_SMS_CODE, SANDBOX_TOTP_SECRET, type TestUser } from '../test-users';
import type { AuthPage } from './auth-page';
import { cx } from './class-names';
import type { BoundDevice } from './device-binding';
import { DEVICE_PROMPT_PATH, mountDevicePrompt } from './device-prompt';
import { html } from './html';
import { CHALLENGE_SECONDS, type LoginChallenges } from './login-challenges';
import { safeNext } from './safe-next';
import type { KitClock, SiteDefinition } from './site';

/**
 * The kit's own sign-in, with every sandbox test user's behaviour: the password form (/login), the TOTP and SMS code
 * steps, the human check (/login/verify), the device prompt (device-prompt.ts) and the locked account. A site with a
 * sign-in of its own (site.signIn) does not mount it.
 */
export interface PasswordLoginDeps {
  site: SiteDefinition;
  clock: KitClock;
  /** Checks the signed ticket that puts a sign-in into an organization's copy (never a bare tenant name). */
  tenantTokens: TenantTokens;
  challenges: LoginChallenges;
  authPage: AuthPage;
  preCsrf(req: Request, res: Response): string;
  checkPreCsrf(req: Request, res: Response): boolean;
  /** `device`: what the sign-in came from, which user_bound's session is bound to. */
  startSession(res: Response, user: TestUser, tenant: string, next: string, device?: BoundDevice): Promise<void>;
}

const MAX_CODE_ATTEMPTS = 5;

export function mountPasswordLogin(app: Express, deps: PasswordLoginDeps): void {
  const { site, clock, tenantTokens, authPage, preCsrf, checkPreCsrf, startSession } = deps;
  const { save: saveChallenge, load: loadChallenge, drop: dropChallenge } = deps.challenges;

  const loginForm = (
    req: Request,
    res: Response,
    status: number,
    opts: { error?: string; username?: string; tenantToken?: string; next?: string } = {},
  ) => {
    const token = preCsrf(req, res);
    // Only a ticket that verifies is carried into the form; anything else signs in to the public copy.
    const ticket = opts.tenantToken ?? req.query.tenant_token;
    const tenantToken = tenantTokens.verify(ticket, site.slug) ? (ticket as string) : '';
    const next = safeNext(opts.next ?? req.query.next, site.homePath);
    authPage(
      res,
      status,
      'Sign in',
      html`<h1 class="${cx('auth-title')}">Sign in to ${site.brand.name}</h1>
${opts.error ? html`<div role="alert" class="${cx('auth-error')}">${opts.error}</div>` : ''}
<form method="post" action="/login" class="${cx('auth-form')}" novalidate>
<input type="hidden" name="_csrf" value="${token}"><input type="hidden" name="tenant_token" value="${tenantToken}"><input type="hidden" name="next" value="${next}"><input type="hidden" name="tz" value="">
<label for="${cx('login-user')}">Username or email</label>
<input id="${cx('login-user')}" name="username" autocomplete="username" autocapitalize="off" spellcheck="false" value="${opts.username ?? ''}" required>
<label for="${cx('login-pass')}">Password</label>
<input id="${cx('login-pass')}" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="${cx('auth-submit')}">Sign in</button>
</form>
<script>try{document.querySelector('input[name=tz]').value=Intl.DateTimeFormat().resolvedOptions().timeZone}catch(e){}</script>`,
    );
  };

  const lockedPage = (res: Response) =>
    authPage(
      res,
      403,
      'Account locked',
      html`<h1 class="${cx('auth-title')}">Your account is locked</h1>
<p role="alert" class="${cx('auth-error')}">Account locked: too many unusual sign-in attempts. Contact ${site.brand.name} support to unlock it.</p>
<p><a href="/login">Back to sign in</a></p>`,
    );

  app.get('/login', (req, res) => loginForm(req, res, 200));

  app.post('/login', async (req, res, next) => {
    try {
      // The tenant comes from a ticket this service signed, never from a field a visitor can type (a `tenant` field is ignored).
      const tenantToken = typeof req.body?.tenant_token === 'string' ? req.body.tenant_token : undefined;
      const tenant = tenantTokens.verify(tenantToken, site.slug) ?? PUBLIC_TENANT;
      const ticket = tenant === PUBLIC_TENANT ? {} : { tenantToken };
      const nextPath = safeNext(req.body?.next, site.homePath);
      const username = String(req.body?.username ?? '')
        .trim()
        .slice(0, 100);
      const password = String(req.body?.password ?? '').slice(0, 200);
      if (!checkPreCsrf(req, res))
        return loginForm(req, res, 403, { error: 'Your sign-in form expired. Please try again.', username, ...ticket, next: nextPath });
      const user = findTestUser(username);
      if (user?.behaviour === 'locked') return lockedPage(res);
      const passwordOk = !!user && user.password === password;
      const expiresAt = new Date(clock.now().getTime() + CHALLENGE_SECONDS * 1000).toISOString();
      if (user?.behaviour === 'captcha') {
        await saveChallenge(res, {
          username,
          tenant,
          ...ticket,
          next: nextPath,
          step: 'captcha',
          passwordOk,
          humanNonce: randomBytes(12).toString('hex'),
          attempts: 0,
          expiresAt,
        });
        return res.redirect(303, '/login/verify');
      }
      if (!user || !passwordOk) {
        return loginForm(req, res, 401, { error: 'Incorrect username or password.', username, ...ticket, next: nextPath });
      }
      if (user.behaviour === 'device') {
        await saveChallenge(res, { username, tenant, ...ticket, next: nextPath, step: 'device', passwordOk, attempts: 0, expiresAt });
        return res.redirect(303, DEVICE_PROMPT_PATH);
      }
      if (user.behaviour === 'totp' || user.behaviour === 'sms') {
        await saveChallenge(res, { username, tenant, ...ticket, next: nextPath, step: user.behaviour, passwordOk, attempts: 0, expiresAt });
        return res.redirect(303, user.behaviour === 'totp' ? '/login/two-factor' : '/login/sms');
      }
      const device = { userAgent: req.get('user-agent') ?? '', timeZone: String(req.body?.tz ?? '').slice(0, 64) };
      await startSession(res, user, tenant, nextPath, device);
    } catch (err) {
      next(err);
    }
  });

  const codePage = (res: Response, status: number, step: 'totp' | 'sms', error?: string) => {
    const isTotp = step === 'totp';
    authPage(
      res,
      status,
      isTotp ? 'Two-factor authentication' : 'Verify your phone',
      html`<h1 class="${cx('auth-title')}">${isTotp ? 'Two-factor authentication' : 'Check your phone'}</h1>
<p class="${cx('auth-hint')}">${isTotp ? 'Open your authenticator app and enter the 6-digit code for ' + site.brand.name + '.' : 'We sent a text message with a 6-digit code to the phone number ending in 42.'}</p>
${error ? html`<div role="alert" class="${cx('auth-error')}">${error}</div>` : ''}
<form method="post" action="${isTotp ? '/login/two-factor' : '/login/sms'}" class="${cx('auth-form')}">
<input type="hidden" name="_csrf" value="${preCsrf(res.req, res)}">
<label for="${cx('code')}">${isTotp ? 'Authentication code' : 'SMS code'}</label>
<input id="${cx('code')}" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit" class="${cx('auth-submit')}">Verify</button>
</form>
<p><a href="/login">Use a different account</a></p>`,
    );
  };

  for (const step of ['totp', 'sms'] as const) {
    const path = step === 'totp' ? '/login/two-factor' : '/login/sms';
    app.get(path, async (req, res, next) => {
      try {
        const ch = await loadChallenge(res);
        if (!ch || ch.c.step !== step) return res.redirect(303, '/login');
        codePage(res, 200, step);
      } catch (err) {
        next(err);
      }
    });
    app.post(path, async (req, res, next) => {
      try {
        const ch = await loadChallenge(res);
        if (!ch || ch.c.step !== step) return res.redirect(303, '/login');
        if (!checkPreCsrf(req, res)) return codePage(res, 403, step, 'This form expired. Please try again.');
        const code = String(req.body?.code ?? '').replace(/\s+/g, '');
        const valid = step === 'totp' ? /^\d{6}$/.test(code) && authenticator.check(code, SANDBOX_TOTP_SECRET) : code === SANDBOX_SMS_CODE;
        const user = findTestUser(ch.c.username);
        if (valid && user) {
          await dropChallenge(res, ch.id);
          return startSession(res, user, ch.c.tenant, ch.c.next);
        }
        const attempts = ch.c.attempts + 1;
        if (attempts >= MAX_CODE_ATTEMPTS) {
          await dropChallenge(res, ch.id);
          return loginForm(req, res, 401, {
            error: 'Too many incorrect codes. Sign in again.',
            tenantToken: ch.c.tenantToken,
            next: ch.c.next,
          });
        }
        await saveChallenge(res, { ...ch.c, attempts }, ch.id);
        codePage(res, 401, step, 'That code is not correct. Try again.');
      } catch (err) {
        next(err);
      }
    });
  }

  mountDevicePrompt(app, {
    load: async (res) => {
      const ch = await loadChallenge(res);
      return ch && ch.c.step === 'device' ? { id: ch.id, username: ch.c.username, tenant: ch.c.tenant, next: ch.c.next } : null;
    },
    drop: dropChallenge,
    startSession: (res, username, tenant, next) => startSession(res, findTestUser(username)!, tenant, next),
    authPage,
    preCsrf,
    checkPreCsrf,
  });

  app.get('/login/verify', async (req, res, next) => {
    try {
      const ch = await loadChallenge(res);
      if (!ch || ch.c.step !== 'captcha') return res.redirect(303, '/login');
      authPage(
        res,
        200,
        'Verify you are human',
        html`<h1 class="${cx('auth-title')}">Let's make sure it's you</h1>
<p class="${cx('auth-hint')}">Complete the check below to continue signing in.</p>
<form method="post" action="/login/verify" class="${cx('auth-form')}">
<input type="hidden" name="_csrf" value="${preCsrf(req, res)}"><input type="hidden" name="human" value="">
<div class="${cx('hv-box')}"><div role="checkbox" aria-checked="false" tabindex="0" aria-label="I'm not a robot" class="${cx('hv-check')}" data-n="${ch.c.humanNonce ?? ''}"></div><span>I'm not a robot</span><span class="${cx('hv-spin')}" hidden>Verifying…</span></div>
<button type="submit" class="${cx('auth-submit')}" disabled>Continue</button>
</form>
<script>
(function(){var b=document.querySelector('[role=checkbox]'),f=b.closest('form'),s=f.querySelector('button'),sp=f.querySelector('.${cx('hv-spin')}');
function go(){if(b.getAttribute('aria-checked')==='true')return;sp.hidden=false;setTimeout(function(){sp.hidden=true;b.setAttribute('aria-checked','true');b.textContent='\\u2713';f.human.value=b.dataset.n;s.disabled=false;},400);}
b.addEventListener('click',go);b.addEventListener('keydown',function(e){if(e.key===' '||e.key==='Enter'){e.preventDefault();go();}});})();
</script>`,
      );
    } catch (err) {
      next(err);
    }
  });

  app.post('/login/verify', async (req, res, next) => {
    try {
      const ch = await loadChallenge(res);
      if (!ch || ch.c.step !== 'captcha') return res.redirect(303, '/login');
      const human = String(req.body?.human ?? '');
      if (!checkPreCsrf(req, res) || !ch.c.humanNonce || human !== ch.c.humanNonce) {
        await dropChallenge(res, ch.id);
        return loginForm(req, res, 401, {
          error: 'We could not verify that you are human. Please try again.',
          tenantToken: ch.c.tenantToken,
          next: ch.c.next,
        });
      }
      await dropChallenge(res, ch.id);
      const user = findTestUser(ch.c.username);
      if (!user || !ch.c.passwordOk) {
        return loginForm(req, res, 401, {
          error: 'Incorrect username or password.',
          username: ch.c.username,
          tenantToken: ch.c.tenantToken,
          next: ch.c.next,
        });
      }
      await startSession(res, user, ch.c.tenant, ch.c.next);
    } catch (err) {
      next(err);
    }
  });
}
