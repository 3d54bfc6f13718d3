import { html, raw } from '../../../sandbox/kit/html';
import type { SiteDefinition } from '../../../sandbox/kit/site';
import { cx } from '../../../sandbox/kit/site-app';
import { PUBLIC_TENANT } from '../../../sandbox/site-sessions';
import { IDP_SLUG, SSO_CODE_KIND } from '../idp/site';

/**
 * Lumen: the sandbox's simulated reading list, whose only sign-in is "Continue with Idp" (an SSO hop to the
 * simulated identity provider, with its visual challenge). No login recipe can pass it; people sign in through the
 * connect widget's live view. After the hop, /sso/callback trades Idp's single-use code for a Lumen session.
 */
export const LUMEN_SLUG = 'lumen';
const STATE_KIND = 'sso_state';
const STATE_SECONDS = 10 * 60;

export const LUMEN_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#b45309"/>' +
  '<path d="M22 16h8v26h14v6H22z" fill="#fff"/></svg>';
const LUMEN_CSS = `body{font-family:Georgia,serif;margin:0;color:#1c1917;background:#fffbeb}
.${cx('lu-top')}{display:flex;justify-content:space-between;align-items:center;padding:12px 20px;background:#fff;border-bottom:1px solid #fde68a}
.${cx('lu-main')}{max-width:640px;margin:0 auto;padding:20px}
.${cx('lu-list')}{list-style:none;padding:0}
.${cx('lu-list')} li{background:#fff;border:1px solid #fde68a;border-radius:10px;padding:12px 16px;margin:10px 0}
.${cx('lu-list')} h2{font-size:18px;margin:0 0 4px}
.${cx('lu-sso')}{width:100%;padding:12px;border:1px solid #0f766e;border-radius:8px;background:#fff;color:#0f766e;font-size:16px;cursor:pointer}`;

interface Article {
  title: string;
  author: string;
  minutes: number;
}

const ARTICLES: Article[] = [
  { title: 'The Quiet Art of Reading Slowly', author: 'Maren Holt', minutes: 12 },
  { title: 'Why Maps Lie (a Little)', author: 'Tomás Ibarra', minutes: 8 },
  { title: 'Notes on Bread and Patience', author: 'Ada Okafor', minutes: 15 },
];

export const lumenSite: SiteDefinition = {
  slug: LUMEN_SLUG,
  brand: { name: 'Lumen', css: LUMEN_CSS, logoSvg: LUMEN_LOGO },
  seed: () => ARTICLES.map((a, i) => ({ kind: 'article', data: { ...a }, ageMinutes: 60 * (i + 1) })),
  homePath: '/library',
  layout: ({ title, body, user, csrfToken }) =>
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Lumen</title><style>${raw(LUMEN_CSS)}</style></head><body>
<header class="${cx('lu-top')}"><strong>Lumen</strong><span>${user.displayName}
<form method="post" action="/logout" style="display:inline"><input type="hidden" name="_csrf" value="${csrfToken}"><button type="submit">Sign out</button></form></span></header>
${body}</body></html>`,

  signIn(router, auth) {
    router.get('/login', (req, res) => {
      const ticket =
        typeof req.query.tenant_token === 'string' && auth.tenantFromTicket(req.query.tenant_token) ? req.query.tenant_token : '';
      auth.authPage(
        res,
        200,
        'Sign in',
        html`<h1>Sign in to Lumen</h1>
<p>Lumen uses your Idp account.</p>
<form method="post" action="/login/sso">
<input type="hidden" name="_csrf" value="${auth.preCsrf(req, res)}"><input type="hidden" name="tenant_token" value="${ticket}"><input type="hidden" name="next" value="${auth.safeNext(req.query.next)}">
<button type="submit" class="${cx('lu-sso')}">Continue with Idp</button>
</form>
<p><a href="https://help.lumen.example/sign-in">Trouble signing in?</a></p>`,
      );
    });

    router.post('/login/sso', async (req, res, next) => {
      try {
        if (!auth.checkPreCsrf(req, res)) return res.redirect(303, '/login');
        const tenant = auth.tenantFromTicket(req.body?.tenant_token) ?? PUBLIC_TENANT;
        const state = await auth.records.put(LUMEN_SLUG, STATE_KIND, { tenant, next: auth.safeNext(req.body?.next) }, STATE_SECONDS);
        const host = req.headers.host ?? '';
        const idp = new URL(`${req.protocol}://${IDP_SLUG}.${host.slice(LUMEN_SLUG.length + 1)}/authorize`);
        idp.searchParams.set('client_id', LUMEN_SLUG);
        idp.searchParams.set('redirect_uri', `${req.protocol}://${host}/sso/callback`);
        idp.searchParams.set('state', state);
        res.redirect(303, idp.toString());
      } catch (err) {
        next(err);
      }
    });

    router.get('/sso/callback', async (req, res, next) => {
      try {
        const state = await auth.records.take(LUMEN_SLUG, STATE_KIND, String(req.query.state ?? ''));
        const code = await auth.records.take(IDP_SLUG, SSO_CODE_KIND, String(req.query.code ?? ''));
        if (!state || !code || code.clientId !== LUMEN_SLUG) {
          return auth.authPage(
            res,
            400,
            'Sign-in failed',
            html`<h1>Sign-in failed</h1><p role="alert">Idp did not confirm the sign-in. <a href="/login">Try again</a>.</p>`,
          );
        }
        await auth.startSession(res, String(code.username), String(state.tenant), String(state.next));
      } catch (err) {
        next(err);
      }
    });
  },

  routes(router, kit) {
    router.get('/', (_req, res) => res.redirect(303, '/library'));
    router.get('/library', async (req, res, next) => {
      try {
        const articles = await kit.docs(res).list<Article>('article');
        kit.page(req, res, {
          title: 'Your reading list',
          body: html`<main class="${cx('lu-main')}"><h1>Your reading list</h1>
<ul class="${cx('lu-list')}" aria-label="Reading list">${articles.map(
            (a) => html`<li><h2>${a.data.title}</h2><p>${a.data.author} · ${a.data.minutes} min read</p></li>`,
          )}</ul></main>`,
        });
      } catch (err) {
        next(err);
      }
    });
  },
};
