import { randomBytes } from 'node:crypto';

import * as cookie from 'cookie';
import express, { type NextFunction, type Request, type Response } from 'express';

import type { SandboxSessionRecord, Store } from '../../store';
import { sessionCookieName, type SiteSessions } from '../site-sessions';
import type { TenantTokens } from '../tenant-tokens';
import { findTestUser, type TestUser } from '../test-users';
import { APP_PATH, appHandoff, mountAppShell } from './app-shell';
import { authPageOf } from './auth-page';
import { batchedLists } from './batched-lists';
import { type BoundDevice, deviceBindings, deviceMismatch } from './device-binding';
import { html } from './html';
import { loginChallenges } from './login-challenges';
import { mountPasswordLogin } from './password-login';
import { safeNext } from './safe-next';
import { ensureSeeded } from './seeding';
import { signInRecords } from './sign-in-records';
import type { Doc, KitClock, SiteDefinition, SiteDocs, SiteKit, SiteUser } from './site';

export { cx } from './class-names';
export { safeNext } from './safe-next';

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
    const lists = batchedLists(repo, tenant, site.slug);
    const toDoc = <T>(r: { id: string; kind: string; data: Record<string, unknown>; createdAt: Date; updatedAt: Date }): Doc<T> => ({
      id: r.id,
      kind: r.kind,
      data: r.data as T,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    });
    return {
      list: async <T>(kind: string) => (await lists(kind)).map((r) => toDoc<T>(r)),
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
    // One per request (and tenant), so the lists its handlers ask for in the same tick share a statement.
    docs: (res) => {
      const tenant = (res.locals.session as SandboxSessionRecord).tenant;
      const held = res.locals.docs as { tenant: string; docs: SiteDocs } | undefined;
      if (held?.tenant === tenant) return held.docs;
      const docs = docsFor(tenant);
      res.locals.docs = { tenant, docs };
      return docs;
    },
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

  // ---------- the sign-in: pages in the site's brand, challenges between its steps, CSRF before a session ----------
  const authPage = authPageOf(site);
  const challenges = loginChallenges({ store, clock, site, chalName, cookieOpts, cookies });

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
      docs: docsFor,
    });
    app.use(router);
    // The kit's own password form and code steps do not exist on such a site: its sign-in is only its own.
    app.use('/login', (_req, res) => void res.status(404).type('text').send('Not found'));
  }

  mountPasswordLogin(app, { site, clock, tenantTokens, challenges, authPage, preCsrf, checkPreCsrf, startSession });

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
      const found = await sessions.resolveForPage(site.slug, cookies(res)[sidName]);
      const session = found && !(await boundElsewhere(req, res, found.session)) ? found.session : null;
      if (!session) {
        if (cookies(res)[sidName]) res.clearCookie(sidName, cookieOpts);
        const wantsJson = req.xhr || req.get('accept')?.includes('application/json');
        if (wantsJson) return res.status(401).json({ error: 'not signed in' });
        return res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      }
      // Seeded already (the lookup said so) on all but a tenant's first page, or after a reset.
      if (!found!.seeded) await ensureSeeded(store, clock, site, session.tenant);
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
