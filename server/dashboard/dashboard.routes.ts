import { timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Environment } from '../config';
import type { Services } from '../services';
import type { DashboardSessionRecord, DashboardUserRecord, OrganizationRecord } from '../store';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/webhook-schemas';
import { isExposedClientError } from '../http/error-handler';
import { dashboardAssets } from './assets';
import { webhookDeleteConfirmPage, webhookDetailPage, webhooksPage } from './webhooks.views';
import {
  authPage,
  BASE,
  connectionsPage,
  credentialsPage,
  messagePage,
  orgListPage,
  orgNav,
  requestDetailPage,
  requestLiveFragment,
  requestsPage,
  revokeConfirmPage,
  rotateConfirmPage,
  STATUSES,
  type PageContext,
  type RequestFilters,
} from './views';

/**
 * The dashboard at /dashboard: server-rendered pages for people (not API callers).
 *
 * Security, in the order the middleware runs:
 *  - every response: no-store, a strict CSP (scripts and styles from 'self' only), no framing;
 *  - the session cookie (HttpOnly, SameSite=Lax, Secure when the public URL is https, path /dashboard) names a
 *    stored session; signing in or up replaces it with a new one;
 *  - every POST must carry the session's CSRF token (form field `_csrf`, or header `x-csrf-token` for htmx),
 *    otherwise 403 and nothing happens;
 *  - every /orgs/:orgId route answers 404 unless the person is a member of that organization.
 */
export const SESSION_COOKIE = 'agentlink_dashboard';
const PAGE_SIZE = 25;

interface Locals {
  session: DashboardSessionRecord | null;
  user: DashboardUserRecord | null;
  org: OrganizationRecord;
}
const locals = (res: Response) => res.locals as unknown as Locals;

type AsyncHandler = (req: Request, res: Response, next: NextFunction) => Promise<unknown>;
const wrap =
  (fn: AsyncHandler): RequestHandler =>
  (req, res, next) => {
    fn(req, res, next).catch(next);
  };

const field = (req: Request, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};
const queryString = (req: Request, name: string): string | undefined => {
  const v = req.query[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
};
const envOf = (v: unknown): Environment | null => (v === 'sandbox' || v === 'production' ? v : null);

const encodeCursor = (c: { createdAt: Date; id: string }) => Buffer.from(`${c.createdAt.getTime()}.${c.id}`).toString('base64url');
function decodeCursor(s: string | undefined): { createdAt: Date; id: string } | undefined {
  if (!s) return undefined;
  const m = /^(\d{1,15})\.([A-Za-z0-9_]{1,64})$/.exec(Buffer.from(s, 'base64url').toString());
  return m ? { createdAt: new Date(Number(m[1])), id: m[2] } : undefined;
}
const DATE = /^\d{4}-\d{2}-\d{2}$/;
function dayStart(s: string | undefined, plusDays = 0): Date | undefined | null {
  if (!s) return undefined;
  if (!DATE.test(s)) return null;
  const d = new Date(`${s}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime())) return null;
  return new Date(d.getTime() + plusDays * 86_400_000);
}

function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function dashboardRouter(services: Services): Router {
  const { dashboard: accounts, catalogue, store } = services;
  const secureCookie = services.config.publicUrl.startsWith('https://');
  const router = express.Router();

  const setSessionCookie = (res: Response, cookie: string, expires: Date) =>
    res.append(
      'Set-Cookie',
      serializeCookie(SESSION_COOKIE, cookie, { httpOnly: true, sameSite: 'lax', secure: secureCookie, path: BASE, expires }),
    );
  const clearSessionCookie = (res: Response) =>
    res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: secureCookie, path: BASE, maxAge: 0 }));

  const ctxOf = (res: Response): PageContext => {
    const { session, user } = locals(res);
    return { csrfToken: session?.csrfToken ?? '', ...(user ? { email: user.email } : {}) };
  };
  const providerName = (env: Environment) => (id: string) => catalogue.get(id, env)?.name ?? id;
  const nav = (org: OrganizationRecord, active: Parameters<typeof orgNav>[1]) => orgNav(org, active, { webhooks: true });

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    next();
  });
  router.use('/assets', dashboardAssets());
  router.use(express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 }));

  // The session of the cookie, if any and alive.
  router.use(
    wrap(async (req, res, next) => {
      const cookie = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
      const session = await accounts.resolveSession(cookie);
      const user = session?.userId ? await accounts.findUser(session.userId) : null;
      Object.assign(res.locals, { session, user });
      next();
    }),
  );

  // CSRF: every state-changing request carries the token of its session.
  router.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const session = locals(res).session;
    const sent = field(req, '_csrf') || String(req.headers['x-csrf-token'] ?? '');
    if (!session || !sent || !tokensEqual(sent, session.csrfToken)) {
      res.status(403).type('html').send(
        messagePage(ctxOf(res), 'Request refused', 'The form was stale or did not come from this dashboard (CSRF check failed). Reload the page and try again.', '403'),
      );
      return;
    }
    next();
  });

  /** Pages for people who are not signed in carry a CSRF token too: they get an anonymous session. */
  const ensureSession = async (res: Response): Promise<DashboardSessionRecord> => {
    const existing = locals(res).session;
    if (existing) return existing;
    const started = await accounts.startAnonymousSession();
    setSessionCookie(res, started.cookie, started.session.expiresAt);
    locals(res).session = started.session;
    return started.session;
  };

  const requireUser: RequestHandler = (req, res, next) => {
    if (locals(res).user) return next();
    if (req.method === 'GET') return res.redirect(303, `${BASE}/sign-in`);
    res.status(401).type('html').send(messagePage(ctxOf(res), 'Sign in first', 'Your session ended; sign in again.', '401'));
  };

  const notFound = (res: Response) =>
    res.status(404).type('html').send(messagePage(ctxOf(res), 'Not found', 'There is nothing here, or you do not have access to it.', '404'));

  router.get('/', (_req, res) => res.redirect(303, locals(res).user ? `${BASE}/orgs` : `${BASE}/sign-in`));

  for (const mode of ['sign-in', 'sign-up'] as const) {
    router.get(
      `/${mode}`,
      wrap(async (_req, res) => {
        if (locals(res).user) return res.redirect(303, `${BASE}/orgs`);
        await ensureSession(res);
        res.type('html').send(authPage(ctxOf(res), mode));
      }),
    );
    router.post(
      `/${mode}`,
      wrap(async (req, res) => {
        const email = field(req, 'email');
        const password = field(req, 'password');
        const previous = locals(res).session?.id ?? null;
        const result = mode === 'sign-up' ? await accounts.signUp(email, password, previous) : await accounts.signIn(email, password, previous);
        if (!result.ok) {
          const status = result.code === 'LOCKED' ? 429 : mode === 'sign-in' ? 401 : 400;
          return res.status(status).type('html').send(authPage(ctxOf(res), mode, { error: result.message, email }));
        }
        setSessionCookie(res, result.value.cookie, result.value.session.expiresAt);
        res.redirect(303, `${BASE}/orgs`);
      }),
    );
  }

  router.post(
    '/sign-out',
    wrap(async (_req, res) => {
      const session = locals(res).session;
      if (session) await accounts.signOut(session.id);
      clearSessionCookie(res);
      res.redirect(303, `${BASE}/sign-in`);
    }),
  );

  router.use('/orgs', requireUser);

  router.get(
    '/orgs',
    wrap(async (_req, res) => {
      res.type('html').send(orgListPage(ctxOf(res), await accounts.memberships(locals(res).user!.id)));
    }),
  );

  router.post(
    '/orgs',
    wrap(async (req, res) => {
      const user = locals(res).user!;
      const name = field(req, 'name').trim();
      if (name.length === 0 || name.length > 120) {
        return res.status(400).type('html').send(orgListPage(ctxOf(res), await accounts.memberships(user.id), 'Give the organization a name of 1 to 120 characters.'));
      }
      const issued = await accounts.createOrganization(user.id, name);
      // The secrets are in this one answer and nowhere else (no redirect: they are never stored in plain text).
      res.status(201).type('html').send(
        credentialsPage(ctxOf(res), issued.organization, nav(issued.organization, 'overview'), {
          secrets: { sandbox: issued.sandboxSecret, production: issued.productionSecret },
          message: `Created ${name}. Copy both secrets now.`,
        }),
      );
    }),
  );

  // Membership decides access to everything under /orgs/:orgId; anything else is 404.
  router.use(
    '/orgs/:orgId',
    wrap(async (req, res, next) => {
      const org = await accounts.organizationFor(locals(res).user!.id, req.params.orgId);
      if (!org) return notFound(res);
      locals(res).org = org;
      next();
    }),
  );

  router.get('/orgs/:orgId', (_req, res) => {
    const org = locals(res).org;
    res.type('html').send(credentialsPage(ctxOf(res), org, nav(org, 'overview'), {}));
  });

  router.post(
    '/orgs/:orgId/members',
    wrap(async (req, res) => {
      const org = locals(res).org;
      if ((await accounts.roleIn(locals(res).user!.id, org.id)) !== 'owner') {
        return res.status(403).type('html').send(messagePage(ctxOf(res), 'Owners only', 'Only an owner of the organization can add members.', '403'));
      }
      const added = await accounts.addMember(org.id, field(req, 'email'));
      res.status(added ? 200 : 400).type('html').send(
        credentialsPage(ctxOf(res), org, nav(org, 'overview'), {
          memberNotice: added
            ? { text: `${field(req, 'email')} is a member of ${org.name}.`, kind: 'ok' }
            : { text: 'No dashboard account has that email; ask them to sign up first.', kind: 'error' },
        }),
      );
    }),
  );

  router.get('/orgs/:orgId/secrets/:env/rotate', (req, res) => {
    const org = locals(res).org;
    const env = envOf(req.params.env);
    if (!env) return notFound(res);
    res.type('html').send(rotateConfirmPage(ctxOf(res), org, nav(org, 'overview'), env));
  });

  router.post(
    '/orgs/:orgId/secrets/:env/rotate',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.params.env);
      if (!env) return notFound(res);
      if (field(req, 'confirm') !== 'yes') return res.redirect(303, `${BASE}/orgs/${org.id}/secrets/${env}/rotate`);
      const rotated = await services.organizations.rotateSecret(org.id, env);
      if (!rotated.ok) return notFound(res);
      res.type('html').send(
        credentialsPage(ctxOf(res), org, nav(org, 'overview'), {
          secrets: { [env]: rotated.value.secret },
          message: `The ${env} secret was rotated; the previous one no longer works.`,
        }),
      );
    }),
  );

  router.get(
    '/orgs/:orgId/connections',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      const page = await store.repos.connections.listOwned(
        { organizationId: org.id, environment: env },
        { limit: PAGE_SIZE, after: decodeCursor(queryString(req, 'cursor')) },
      );
      res.type('html').send(
        connectionsPage(ctxOf(res), org, nav(org, 'connections'), env, page.records, providerName(env), page.next ? encodeCursor(page.next) : null),
      );
    }),
  );

  const ownedConnection = async (res: Response, connectionId: string) => {
    const connection = connectionId.length <= 64 ? await store.repos.connections.findById(connectionId) : null;
    return connection && connection.organizationId === locals(res).org.id ? connection : null;
  };

  router.get(
    '/orgs/:orgId/connections/:connectionId/revoke',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      res.type('html').send(revokeConfirmPage(ctxOf(res), org, nav(org, 'connections'), connection, providerName(connection.environment)(connection.providerId)));
    }),
  );

  router.post(
    '/orgs/:orgId/connections/:connectionId/revoke',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      const revoked = await services.connections.revoke({ organizationId: org.id, environment: connection.environment }, connection.id);
      if (!revoked.ok) return notFound(res);
      res.redirect(303, `${BASE}/orgs/${org.id}/connections?env=${connection.environment}`);
    }),
  );

  router.get(
    '/orgs/:orgId/requests',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      const status = queryString(req, 'status');
      const filters: RequestFilters = {
        env,
        status: status && (STATUSES as readonly string[]).includes(status) ? status : undefined,
        provider: queryString(req, 'provider'),
        from: queryString(req, 'from'),
        to: queryString(req, 'to'),
      };
      const createdFrom = dayStart(filters.from);
      const createdBefore = dayStart(filters.to, 1);
      const badDate = createdFrom === null || createdBefore === null;
      const page = badDate
        ? { records: [], next: null }
        : await store.repos.agentRequests.listOwned(
            { organizationId: org.id, environment: env },
            {
              limit: PAGE_SIZE,
              after: decodeCursor(queryString(req, 'cursor')),
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.provider ? { providerId: filters.provider } : {}),
              ...(createdFrom ? { createdFrom } : {}),
              ...(createdBefore ? { createdBefore } : {}),
            },
          );
      res.status(badDate ? 400 : 200).type('html').send(
        requestsPage(
          ctxOf(res),
          org,
          nav(org, 'requests'),
          filters,
          catalogue.list(env).map((p) => ({ providerId: p.providerId, name: p.name })),
          page.records,
          providerName(env),
          page.next ? encodeCursor(page.next) : null,
          badDate ? 'Dates must be written YYYY-MM-DD.' : undefined,
        ),
      );
    }),
  );

  const ownedRequest = async (res: Response, requestId: string) => {
    const record = requestId.length <= 64 ? await store.repos.agentRequests.findById(requestId) : null;
    return record && record.organizationId === locals(res).org.id ? record : null;
  };

  router.get(
    '/orgs/:orgId/requests/:requestId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const record = await ownedRequest(res, req.params.requestId);
      if (!record) return notFound(res);
      res.type('html').send(requestDetailPage(ctxOf(res), org, nav(org, 'requests'), record, providerName(record.environment)(record.providerId)));
    }),
  );

  // The live part of the detail page (htmx polls it every 2 s while the request is PENDING or RUNNING).
  router.get(
    '/orgs/:orgId/requests/:requestId/live',
    wrap(async (req, res) => {
      const record = await ownedRequest(res, req.params.requestId);
      if (!record) return notFound(res);
      res.type('html').send(requestLiveFragment(locals(res).org, record).value);
    }),
  );

  // Webhooks: endpoints per environment (the signing secret shown once), deliveries with response codes, re-send.
  const webhooks = services.webhookEndpoints;
  const fieldList = (req: Request, name: string): string[] => {
    const v = (req.body as Record<string, unknown> | undefined)?.[name];
    return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
  };
  const ownedEndpoint = async (res: Response, webhookId: string) => {
    const organizationId = locals(res).org.id;
    for (const environment of ['sandbox', 'production'] as const) {
      const found = await webhooks.get({ organizationId, environment }, webhookId.slice(0, 64));
      if (found.ok) return found.value;
    }
    return null;
  };

  router.get(
    '/orgs/:orgId/webhooks',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      res.type('html').send(webhooksPage(ctxOf(res), org, nav(org, 'webhooks'), env, await webhooks.list({ organizationId: org.id, environment: env })));
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(field(req, 'env')) ?? 'sandbox';
      const caller = { organizationId: org.id, environment: env };
      const events = fieldList(req, 'events').filter((e): e is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
      const url = field(req, 'url').trim();
      const description = field(req, 'description').trim().slice(0, 500);
      const invalid = url.length === 0 || url.length > 2048 ? 'Enter the URL of your endpoint.' : events.length === 0 ? 'Choose at least one event.' : null;
      const created = invalid ? null : await webhooks.create(caller, { url, events, ...(description ? { description } : {}) });
      const error = invalid ?? (created && !created.ok ? created.error.message : undefined);
      res.status(error ? 400 : 201).type('html').send(
        webhooksPage(ctxOf(res), org, nav(org, 'webhooks'), env, await webhooks.list(caller), {
          ...(error ? { error } : {}),
          ...(created?.ok ? { created: created.value } : {}),
        }),
      );
    }),
  );

  router.get(
    '/orgs/:orgId/webhooks/:webhookId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      const cursor = queryString(req, 'cursor');
      const page = await webhooks.listDeliveries({ organizationId: org.id, environment: endpoint.environment }, endpoint.id, cursor ? { cursor } : {});
      if (!page.ok) return notFound(res);
      const resent = req.query.resent === '1' ? 'A new delivery was queued; it shows up here with its own response code.' : undefined;
      res.type('html').send(webhookDetailPage(ctxOf(res), org, nav(org, 'webhooks'), endpoint, page.value.records, page.value.nextCursor, resent));
    }),
  );

  router.get(
    '/orgs/:orgId/webhooks/:webhookId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      res.type('html').send(webhookDeleteConfirmPage(ctxOf(res), org, nav(org, 'webhooks'), endpoint));
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks/:webhookId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      await webhooks.delete({ organizationId: org.id, environment: endpoint.environment }, endpoint.id);
      res.redirect(303, `${BASE}/orgs/${org.id}/webhooks?env=${endpoint.environment}`);
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks/deliveries/:deliveryId/resend',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const deliveryId = req.params.deliveryId.slice(0, 64);
      for (const environment of ['sandbox', 'production'] as const) {
        const resent = await webhooks.resend({ organizationId: org.id, environment }, deliveryId);
        if (resent.ok) return res.redirect(303, `${BASE}/orgs/${org.id}/webhooks/${resent.value.endpointId}?resent=1`);
      }
      notFound(res);
    }),
  );

  router.use((_req, res) => notFound(res));
  // A form the body reader refused (too many fields, too large, bad charset): a readable page, not the API's JSON.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!isExposedClientError(err) || res.headersSent) return next(err);
    const message =
      err.status === 413
        ? 'The form was too large or had too many fields. Go back and try again.'
        : err.status === 415
          ? 'The form was sent in an encoding this dashboard does not read. Go back and try again.'
          : 'The form could not be read. Go back and try again.';
    res.status(err.status).type('html').send(messagePage(ctxOf(res), 'Form not accepted', message, String(err.status)));
  });
  return router;
}
