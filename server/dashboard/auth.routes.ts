import type { RequestHandler, Response, Router } from 'express';

import type { DashboardSessionRecord } from '../store';
import { ctxOf, type DashboardDeps, field, locals, queryString, sessionCookies, wrap } from './dashboard-kit';
import { authPage, BASE, messagePage, signupClosedPage } from './views';

/** Pages for people who are not signed in carry a CSRF token too: they get an anonymous session. */
export async function ensureSession(
  res: Response,
  deps: Pick<DashboardDeps, 'accounts' | 'secureCookie'>,
): Promise<DashboardSessionRecord> {
  const existing = locals(res).session;
  if (existing) return existing;
  const started = await deps.accounts.startAnonymousSession();
  sessionCookies(deps.secureCookie).set(res, started.cookie, started.session.expiresAt);
  Object.assign(locals(res), { session: started.session, cookie: started.cookie });
  return started.session;
}

/** Where a sign-in may continue to: only an invitation page of this dashboard (never another site). */
const NEXT_PATTERN = /^\/dashboard\/invitations\/inv_[A-Za-z0-9_-]{43}$/;
const nextOf = (value: string | undefined) => (value && NEXT_PATTERN.test(value) ? value : undefined);

/**
 * Signing up, in and out. Sign-in and sign-up replace the session the browser came with (no fixation). Sign-up here is
 * for AGENTLINK_SIGNUP=open only; otherwise the page says how to get in (invitations: ./invitations.routes.ts).
 */
export function mountAuthPages(router: Router, deps: DashboardDeps) {
  const { accounts } = deps;
  const cookies = sessionCookies(deps.secureCookie);

  router.get('/', (_req, res) => res.redirect(303, locals(res).user ? `${BASE}/orgs` : `${BASE}/sign-in`));

  for (const mode of ['sign-in', 'sign-up'] as const) {
    router.get(
      `/${mode}`,
      wrap(async (req, res) => {
        if (locals(res).user) return res.redirect(303, nextOf(queryString(req, 'next')) ?? `${BASE}/orgs`);
        await ensureSession(res, deps);
        if (mode === 'sign-up' && deps.signup !== 'open')
          return res
            .status(403)
            .type('html')
            .send(signupClosedPage(ctxOf(res), deps.signup));
        const next = nextOf(queryString(req, 'next'));
        res.type('html').send(authPage(ctxOf(res), mode, { signup: deps.signup, ...(next ? { next } : {}) }));
      }),
    );
    router.post(
      `/${mode}`,
      wrap(async (req, res) => {
        if (mode === 'sign-up' && deps.signup !== 'open')
          return res
            .status(403)
            .type('html')
            .send(signupClosedPage(ctxOf(res), deps.signup));
        const email = field(req, 'email');
        const next = nextOf(field(req, 'next'));
        const password = field(req, 'password');
        const previous = locals(res).session?.id ?? null;
        const result =
          mode === 'sign-up' ? await accounts.signUp(email, password, previous) : await accounts.signIn(email, password, previous);
        if (!result.ok) {
          const status = result.code === 'LOCKED' ? 429 : mode === 'sign-in' ? 401 : 400;
          return res
            .status(status)
            .type('html')
            .send(authPage(ctxOf(res), mode, { error: result.message, email, signup: deps.signup, ...(next ? { next } : {}) }));
        }
        cookies.set(res, result.value.cookie, result.value.session.expiresAt);
        res.redirect(303, next ?? `${BASE}/orgs`);
      }),
    );
  }

  router.post(
    '/sign-out',
    wrap(async (_req, res) => {
      const session = locals(res).session;
      if (session) await accounts.signOut(session.id);
      cookies.clear(res);
      res.redirect(303, `${BASE}/sign-in`);
    }),
  );
}

/** Everything under /orgs is for signed-in people: a GET goes to the sign-in page, anything else is 401. */
export const requireUser: RequestHandler = (req, res, next) => {
  if (locals(res).user) return next();
  if (req.method === 'GET') return res.redirect(303, `${BASE}/sign-in`);
  res
    .status(401)
    .type('html')
    .send(messagePage(ctxOf(res), 'Sign in first', 'Your session ended; sign in again.', '401'));
};
