import { createHash, randomBytes } from 'node:crypto';

import * as cookie from 'cookie';
import express, { type NextFunction, type Request, type Response } from 'express';
import { authenticator } from 'otplib';

import type { SandboxSessionRecord, Store } from '../../store';
import { PUBLIC_TENANT, sessionCookieName, type SiteSessions } from '../site-sessions';
import type { TenantTokens } from '../tenant-tokens';
import { findTestUser, SANDBOX_SMS_CODE, SANDBOX_TOTP_SECRET, type TestUser } from '../test-users';
import { APP_PATH, appHandoff, mountAppShell } from './app-shell';
import { type BoundDevice, deviceBindings, deviceMismatch } from './device-binding';
import { DEVICE_PROMPT_PATH, mountDevicePrompt } from './device-prompt';
import { html, raw, type RawHtml } from './html';
import { ensureSeeded } from './seeding';
import { signInRecords } from './sign-in-records';
import type { Doc, KitClock, SiteDefinition, SiteDocs, SiteKit, SiteUser } from './site';

/**
 * Builds the Express app of one simulated provider site: login with every sandbox test user's behaviour
 * (password, TOTP, SMS code, lock, human check, short-lived session, a session kept in IndexedDB, a session bound
 * to its device), sessions in AgentLink's database, CSRF on every state-changing request, the site's app
 * (app-shell.ts) and the site's own pages behind login.
 */
export interface SiteAppDeps {
  store: Store;
  clock: KitClock;
  sessions: SiteSessions;
  /** Checks the signed ticket that puts a sign-in into an organization's copy (never a bare tenant name). */
  tenantTokens: TenantTokens;
}
const CHALLENGE_SECONDS = 10 * 60;
const MAX_CODE_ATTEMPTS = 5;

interface Challenge {
  username: string;
  tenant: string;
  /** The ticket the sign-in came with, so a form shown again keeps it (it is checked again when posted). */
  tenantToken?: string;
  next: string;
  step: 'captcha' | 'totp' | 'sms' | 'device';
  passwordOk: boolean;
  humanNonce?: string;
  attempts: number;
  expiresAt: string;
}

const sha = (v: string) => createHash('sha256').update(v).digest('hex');

/** Class names that look generated, like a real site's CSS-in-JS output. */
export function cx(name: string): string {
  return `_${sha(`cls:${name}`).slice(0, 6)}`;
}

/** A base nothing real lives on: `next` must resolve to it and stay on it. */
const NEXT_BASE = 'http://site.invalid';

/**
 * Where to go after sign-in: only a path on this very site. Judged the way the browser will judge the Location
 * header (WHATWG URL parsing, which turns a backslash into `/` and drops tabs and newlines): `/\evil.example/`, `//evil`,
 * `/%5Cevil` (once decoded by a later hop), `javascript:` and every other form that leaves the origin is refused.
 * The answer is the normalised path, so what the browser follows is exactly what was checked.
 */
export function safeNext(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || next.length === 0 || next.length >= 500 || !next.startsWith('/')) return fallback;
  // Backslashes, control characters and whitespace have no place in a path we hand out (raw or percent-encoded).
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern exists to find.
  if (/[\\\s\x00-\x1f\x7f]|%5c|%0[0-9a-f]|%1[0-9a-f]|%7f/i.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE || url.username || url.password) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path that starts with two slashes is read as another host when the browser resolves it again.
  return path.startsWith('//') ? fallback : path;
}

export function createSiteApp(site: SiteDefinition, deps: SiteAppDeps) {
  const { store, clock, sessions, tenantTokens } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const sidName = sessionCookieName(site.slug);
  const csrfName = `${site.slug}_csrf`;
  const chalName = `${site.slug}_chal`;
  const flashName = `${site.slug}_flash`;
  const cookieOpts = { httpOnly: true, sameSite: 'lax' as const, path: '/' };
  const bindings = deviceBindings(store, clock, site.slug);

  app.use(express.urlencoded({ extended: false, limit: '64kb' }));
  app.use(express.json({ limit: '64kb' }));
  app.use((req, res, next) => {
    res.locals.cookies = cookie.parse(req.headers.cookie ?? '');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  const cookies = (res: Response): Record<string, string | undefined> => res.locals.cookies;

  // ---------- storage scoped to the request's tenant ----------
  const docsFor = (tenant: string): SiteDocs => {
    const repo = store.repos.sandboxDocs;
    const toDoc = <T>(r: { id: string; kind: string; data: Record<string, unknown>; createdAt: Date; updatedAt: Date }): Doc<T> => ({
      id: r.id,
      kind: r.kind,
      data: r.data as T,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    });
    return {
      list: async <T>(kind: string) => (await repo.list(tenant, site.slug, kind)).map((r) => toDoc<T>(r)),
      get: async <T>(id: string) => {
        const r = await repo.find(tenant, site.slug, id);
        return r ? toDoc<T>(r) : null;
      },
      insert: async <T extends Record<string, unknown>>(kind: string, data: T) => {
        const now = clock.now();
        const r = await repo.insert({
          id: `${kind.slice(0, 3)}_${randomBytes(8).toString('hex')}`,
          tenant,
          site: site.slug,
          kind,
          data,
          createdAt: now,
          updatedAt: now,
        });
        return toDoc<T>(r);
      },
      update: async (id, data) => repo.update(tenant, site.slug, id, data, clock.now()),
      remove: async (id) => repo.delete(tenant, site.slug, id),
    };
  };

  const kit: SiteKit = {
    docs: (res) => docsFor(res.locals.session.tenant),
    user: (res) => res.locals.user as SiteUser,
    csrfToken: (res) => res.locals.session.csrfToken,
    csrfField: (res) => html`<input type="hidden" name="_csrf" value="${res.locals.session.csrfToken}">`,
    flash: (res, message) => res.cookie(flashName, message.slice(0, 200), { ...cookieOpts, maxAge: 60_000 }),
    page: (req, res, input, status = 200) => {
      const toast = cookies(res)[flashName];
      if (toast) res.clearCookie(flashName, cookieOpts);
      const body = site.layout({ ...input, user: kit.user(res), csrfToken: kit.csrfToken(res), ...(toast ? { toast } : {}) });
      res.status(status).type('html').send(body.value);
    },
    now: () => clock.now(),
    records: signInRecords(store, clock),
  };

  // ---------- auth pages (shared look, the site's brand) ----------
  const authPage = (res: Response, status: number, title: string, content: RawHtml) => {
    res
      .status(status)
      .type('html')
      .send(
        html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${site.brand.name}</title><style>${raw(site.brand.css)}${raw(AUTH_CSS)}</style></head>
<body class="${cx('auth-body')}"><main class="${cx('auth-main')}"><div class="${cx('auth-card')}">
<div class="${cx('auth-logo')}" aria-hidden="true">${raw(site.brand.logoSvg)}</div>
${content}
</div></main></body></html>`.value,
      );
  };

  const preCsrf = (req: Request, res: Response): string => {
    let token = cookies(res)[csrfName];
    if (!token || token.length !== 32) {
      token = randomBytes(24).toString('base64url');
      res.cookie(csrfName, token, cookieOpts);
    }
    return token;
  };
  const checkPreCsrf = (req: Request, res: Response) => {
    const sent = typeof req.body?._csrf === 'string' ? req.body._csrf : '';
    const expected = cookies(res)[csrfName];
    return !!expected && sent === expected;
  };

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

  const saveChallenge = async (res: Response, c: Challenge, existingId?: string) => {
    const repo = store.repos.sandboxDocs;
    if (existingId) {
      await repo.update('__auth', site.slug, existingId, c as unknown as Record<string, unknown>, clock.now());
      return;
    }
    const value = randomBytes(24).toString('base64url');
    const now = clock.now();
    await repo.insert({
      id: sha(value).slice(0, 64),
      tenant: '__auth',
      site: site.slug,
      kind: 'login_challenge',
      data: c as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    });
    res.cookie(chalName, value, cookieOpts);
  };
  const loadChallenge = async (res: Response): Promise<{ id: string; c: Challenge } | null> => {
    const value = cookies(res)[chalName];
    if (!value || value.length > 64) return null;
    const id = sha(value).slice(0, 64);
    const doc = await store.repos.sandboxDocs.find('__auth', site.slug, id);
    if (!doc) return null;
    const c = doc.data as unknown as Challenge;
    if (new Date(c.expiresAt).getTime() <= clock.now().getTime()) {
      await store.repos.sandboxDocs.delete('__auth', site.slug, id);
      return null;
    }
    return { id, c };
  };
  const dropChallenge = async (res: Response, id: string) => {
    await store.repos.sandboxDocs.delete('__auth', site.slug, id);
    res.clearCookie(chalName, cookieOpts);
  };

  /** `device`: what the sign-in came from, which user_bound's session is bound to. */
  const startSession = async (res: Response, user: TestUser, tenant: string, next: string, device?: BoundDevice) => {
    await ensureSeeded(store, clock, site, tenant);
    const { cookieValue, record } = await sessions.create(tenant, site.slug, user.username);
    if (user.behaviour === 'device-bound' && device) await bindings.bind(record.id, device);
    // user_app's session is a token its app keeps in IndexedDB, never a cookie.
    if (user.behaviour === 'indexeddb') return appHandoff(res, site.slug, cookieValue, next.startsWith(APP_PATH) ? next : APP_PATH);
    res.cookie(sidName, cookieValue, { ...cookieOpts, expires: record.expiresAt });
    res.redirect(303, next);
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

  if (site.signIn) {
    const router = express.Router();
    site.signIn(router, {
      startSession: async (res, username, tenant, next) => {
        const user = findTestUser(username);
        if (!user) throw new Error('not a sandbox test user');
        await startSession(res, user, tenant, safeNext(next, site.homePath));
      },
      tenantFromTicket: (ticket) => tenantTokens.verify(ticket, site.slug),
      authPage,
      preCsrf,
      checkPreCsrf,
      cookies,
      safeNext: (next) => safeNext(next, site.homePath),
      records: kit.records,
    });
    app.use(router);
    // The kit's own password form and code steps do not exist on such a site: its sign-in is only its own.
    app.use('/login', (_req, res) => void res.status(404).type('text').send('Not found'));
  }

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

  mountAppShell(app, {
    slug: site.slug,
    sidName,
    cookies,
    resolve: (value) => sessions.resolve(site.slug, value),
    destroy: (value) => sessions.destroy(value),
    bindings,
    authPage,
  });

  /** user_bound's session, presented with another user agent than its sign-in's: signed out (null) for good. */
  const boundElsewhere = async (req: Request, res: Response, session: SandboxSessionRecord) => {
    if (findTestUser(session.username)?.behaviour !== 'device-bound') return false;
    const bound = await bindings.find(session.id);
    if (!bound || !deviceMismatch(bound, { userAgent: req.get('user-agent') ?? '' })) return false;
    await sessions.destroy(cookies(res)[sidName]!);
    await bindings.drop(session.id);
    return true;
  };

  // ---------- everything else needs a live session ----------
  const requireLogin = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const found = await sessions.resolve(site.slug, cookies(res)[sidName]);
      const session = found && (await boundElsewhere(req, res, found)) ? null : found;
      if (!session) {
        if (cookies(res)[sidName]) res.clearCookie(sidName, cookieOpts);
        const wantsJson = req.xhr || req.get('accept')?.includes('application/json');
        if (wantsJson) return res.status(401).json({ error: 'not signed in' });
        return res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      }
      await ensureSeeded(store, clock, site, session.tenant);
      const user = findTestUser(session.username);
      res.locals.session = session;
      res.locals.user = { username: session.username, displayName: user?.displayName ?? session.username } satisfies SiteUser;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const sent = (typeof req.body?._csrf === 'string' && req.body._csrf) || req.get('x-csrf-token');
        if (sent !== session.csrfToken) {
          return res
            .status(403)
            .type('html')
            .send('<!doctype html><title>Forbidden</title><h1>Your session has expired</h1><p>Reload the page and try again.</p>');
        }
      }
      next();
    } catch (err) {
      next(err);
    }
  };

  app.post('/logout', requireLogin, async (req, res, next) => {
    try {
      await sessions.destroy(cookies(res)[sidName]!);
      res.clearCookie(sidName, cookieOpts);
      res.redirect(303, '/login');
    } catch (err) {
      next(err);
    }
  });

  const pages = express.Router();
  pages.use(requireLogin);
  site.routes(pages, kit);
  app.use(pages);

  app.use((req, res) => {
    res
      .status(404)
      .type('html')
      .send(`<!doctype html><title>Not found</title><h1>Page not found</h1><p><a href="${site.homePath}">Go home</a></p>`);
  });
  // A bug in a simulated site must not take the service down; the page says so like a real site would.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    // The body reader refused the request (too many fields, malformed JSON, bad charset): the client's fault, said so.
    const { status, expose } = (err ?? {}) as { status?: unknown; expose?: unknown };
    if (expose === true && typeof status === 'number' && status >= 400 && status < 500) {
      const title = status === 413 ? 'Request too large' : status === 415 ? 'Unsupported request' : 'Bad request';
      res
        .status(status)
        .type('html')
        .send(`<!doctype html><title>${title}</title><h1>${title}</h1><p>The request could not be read. Please go back and try again.</p>`);
      return;
    }
    res.status(500).type('html').send('<!doctype html><title>Error</title><h1>Something went wrong</h1><p>Please try again.</p>');
  });
  return app;
}

const AUTH_CSS = `
.${cx('auth-body')}{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif}
.${cx('auth-main')}{width:100%;max-width:400px;padding:16px;box-sizing:border-box}
.${cx('auth-card')}{background:#fff;border-radius:12px;box-shadow:0 4px 24px rgba(0,0,0,.08);padding:28px}
.${cx('auth-logo')} svg{width:48px;height:48px}
.${cx('auth-title')}{font-size:22px;margin:12px 0 16px}
.${cx('auth-form')}{display:flex;flex-direction:column;gap:8px}
.${cx('auth-form')} input{padding:10px;border:1px solid #d1d5db;border-radius:8px;font-size:16px}
.${cx('auth-submit')}{margin-top:12px;padding:11px;border:0;border-radius:8px;background:#111827;color:#fff;font-size:16px;cursor:pointer}
.${cx('auth-submit')}:disabled{opacity:.5;cursor:not-allowed}
.${cx('auth-error')}{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px;margin-bottom:12px}
.${cx('auth-hint')}{color:#4b5563}
.${cx('hv-box')}{display:flex;align-items:center;gap:12px;border:1px solid #d1d5db;border-radius:8px;padding:14px;margin:8px 0}
.${cx('hv-check')}{width:26px;height:26px;border:2px solid #6b7280;border-radius:4px;cursor:pointer;display:flex;align-items:center;justify-content:center;color:#059669;font-weight:700}
`;
