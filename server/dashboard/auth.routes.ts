import type { RequestHandler, Response, Router } from 'express';

import type { DashboardSessionRecord } from '../store';
import { ctxOf, type DashboardDeps, field, locals, sessionCookies, wrap } from './dashboard-kit';
import { authPage, BASE, messagePage } from './views';

/** Signing up, in and out. Sign-in and sign-up replace the session the browser came with (no fixation). */
export function mountAuthPages(router: Router, deps: DashboardDeps) {
  const { accounts } = deps;
  const cookies = sessionCookies(deps.secureCookie);

  /** Pages for people who are not signed in carry a CSRF token too: they get an anonymous session. */
  const ensureSession = async (res: Response): Promise<DashboardSessionRecord> => {
    const existing = locals(res).session;
    if (existing) return existing;
    const started = await accounts.startAnonymousSession();
    cookies.set(res, started.cookie, started.session.expiresAt);
    locals(res).session = started.session;
    return started.session;
  };

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
        const result =
          mode === 'sign-up' ? await accounts.signUp(email, password, previous) : await accounts.signIn(email, password, previous);
        if (!result.ok) {
          const status = result.code === 'LOCKED' ? 429 : mode === 'sign-in' ? 401 : 400;
          return res
            .status(status)
            .type('html')
            .send(authPage(ctxOf(res), mode, { error: result.message, email }));
        }
        cookies.set(res, result.value.cookie, result.value.session.expiresAt);
        res.redirect(303, `${BASE}/orgs`);
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
