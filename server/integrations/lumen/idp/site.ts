import type { Request, Response } from 'express';

import { html, raw } from '../../../sandbox/kit/html';
import type { SiteDefinition, SiteKit } from '../../../sandbox/kit/site';
import { cx } from '../../../sandbox/kit/site-app';
import { challengePng, newChallengeCode } from './challenge-image';

/**
 * "Idp": the sandbox's simulated identity provider (the "Continue with Google" of the sandbox), on
 * idp.<sandbox host suffix>. People sign in with the kit's form (every sandbox test user), then an authorization
 * request (/authorize?client_id=lumen&redirect_uri=…&state=…) shows a visual challenge: a code drawn as pixels that
 * the person types. Then it sends the browser back to the client with a single-use authorization code.
 *
 * Its one client is Lumen; the redirect must be Lumen's /sso/callback on the same sandbox suffix and port.
 */
export const IDP_SLUG = 'idp';
export const VISUAL_CHALLENGE_KIND = 'visual_challenge';
export const SSO_CODE_KIND = 'sso_code';
const CLIENTS = new Set(['lumen']);
const CHALLENGE_SECONDS = 5 * 60;
const CODE_SECONDS = 60;
const MAX_ATTEMPTS = 5;
const CHALLENGE_COOKIE = 'idp_vc';

const IDP_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0f766e"/>' +
  '<path d="M20 40V24h6v16zM32 24h8a8 8 0 0 1 0 16h-8z" fill="#fff"/></svg>';
const IDP_CSS = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#0f172a}
.${cx('idp-main')}{max-width:420px;margin:0 auto;padding:20px}
.${cx('idp-main')} img{display:block;margin:12px 0;border:1px solid #cbd5e1;border-radius:8px;max-width:100%}
.${cx('idp-main')} form{display:flex;flex-direction:column;gap:8px}
.${cx('idp-main')} input{padding:10px;border:1px solid #d1d5db;border-radius:8px;font-size:18px;letter-spacing:.2em;text-transform:uppercase}
.${cx('idp-main')} button{padding:11px;border:0;border-radius:8px;background:#0f766e;color:#fff;font-size:16px}
.${cx('idp-error')}{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px}`;

interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state: string;
}

/** The client's callback on this sandbox: its slug in place of ours in the Host, on our scheme and port. */
function expectedRedirect(req: Request, clientId: string): string | null {
  const host = req.headers.host ?? '';
  if (!host.startsWith(`${IDP_SLUG}.`)) return null;
  return `${req.protocol}://${clientId}.${host.slice(IDP_SLUG.length + 1)}/sso/callback`;
}

function readAuthorize(req: Request, source: Record<string, unknown>): AuthorizeRequest | null {
  const clientId = String(source.client_id ?? '');
  const redirectUri = String(source.redirect_uri ?? '');
  const state = String(source.state ?? '');
  if (!CLIENTS.has(clientId) || !state || state.length > 100) return null;
  if (redirectUri !== expectedRedirect(req, clientId)) return null;
  return { clientId, redirectUri, state };
}

function challengePage(req: Request, res: Response, kit: SiteKit, a: AuthorizeRequest, status: number, error?: string) {
  kit.page(
    req,
    res,
    {
      title: 'Confirm it is you',
      body: html`<main class="${cx('idp-main')}"><h1>Confirm it's you</h1>
<p>${a.clientId === 'lumen' ? 'Lumen' : a.clientId} wants to sign you in with your Idp account. Type the code shown in the picture.</p>
${error ? html`<div role="alert" class="${cx('idp-error')}">${error}</div>` : ''}
<img src="/authorize/challenge.png?n=${Date.now()}" alt="" width="236" height="86">
<form method="post" action="/authorize">
${kit.csrfField(res)}<input type="hidden" name="client_id" value="${a.clientId}"><input type="hidden" name="redirect_uri" value="${a.redirectUri}"><input type="hidden" name="state" value="${a.state}">
<label for="${cx('vc')}">Code in the picture</label>
<input id="${cx('vc')}" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="8" required>
<button type="submit">Continue</button>
</form></main>`,
    },
    status,
  );
}

async function newChallenge(res: Response, kit: SiteKit, username: string): Promise<void> {
  const value = await kit.records.put(
    IDP_SLUG,
    VISUAL_CHALLENGE_KIND,
    { code: newChallengeCode(), username, attempts: 0 },
    CHALLENGE_SECONDS,
  );
  res.cookie(CHALLENGE_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: '/' });
}

export const idpSite: SiteDefinition = {
  slug: IDP_SLUG,
  brand: { name: 'Idp', css: IDP_CSS, logoSvg: IDP_LOGO },
  seed: () => [],
  homePath: '/account',
  layout: ({ title, body, user }) =>
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Idp</title><style>${raw(IDP_CSS)}</style></head><body>
<header class="${cx('idp-main')}"><strong>Idp</strong> · signed in as ${user.displayName}</header>${body}</body></html>`,
  routes(router, kit) {
    router.get('/account', (req, res) => {
      kit.page(req, res, { title: 'Your Idp account', body: html`<main class="${cx('idp-main')}"><h1>Your Idp account</h1></main>` });
    });

    router.get('/authorize', async (req, res, next) => {
      try {
        const a = readAuthorize(req, req.query);
        if (!a) return res.status(400).type('text').send('Invalid authorization request.');
        await newChallenge(res, kit, kit.user(res).username);
        challengePage(req, res, kit, a, 200);
      } catch (err) {
        next(err);
      }
    });

    router.get('/authorize/challenge.png', async (req, res, next) => {
      try {
        const value = String((req.headers.cookie ?? '').match(new RegExp(`${CHALLENGE_COOKIE}=([^;]+)`))?.[1] ?? '');
        const challenge = await kit.records.get(IDP_SLUG, VISUAL_CHALLENGE_KIND, value);
        if (!challenge) return res.status(404).end();
        res.type('png').send(challengePng(String(challenge.code)));
      } catch (err) {
        next(err);
      }
    });

    router.post('/authorize', async (req, res, next) => {
      try {
        const a = readAuthorize(req, req.body ?? {});
        if (!a) return res.status(400).type('text').send('Invalid authorization request.');
        const value = String((req.headers.cookie ?? '').match(new RegExp(`${CHALLENGE_COOKIE}=([^;]+)`))?.[1] ?? '');
        const challenge = await kit.records.take(IDP_SLUG, VISUAL_CHALLENGE_KIND, value);
        const username = kit.user(res).username;
        const typed = String(req.body?.code ?? '')
          .replace(/\s+/g, '')
          .toUpperCase();
        if (!challenge || challenge.username !== username) {
          await newChallenge(res, kit, username);
          return challengePage(req, res, kit, a, 400, 'That picture expired. Here is a new one.');
        }
        if (typed !== challenge.code) {
          const attempts = Number(challenge.attempts) + 1;
          if (attempts >= MAX_ATTEMPTS) return res.status(403).type('text').send('Too many wrong codes. Start the sign-in again.');
          const fresh = await kit.records.put(
            IDP_SLUG,
            VISUAL_CHALLENGE_KIND,
            { code: newChallengeCode(), username, attempts },
            CHALLENGE_SECONDS,
          );
          res.cookie(CHALLENGE_COOKIE, fresh, { httpOnly: true, sameSite: 'lax', path: '/' });
          return challengePage(req, res, kit, a, 401, 'That is not the code in the picture. Try this one.');
        }
        res.clearCookie(CHALLENGE_COOKIE, { path: '/' });
        const code = await kit.records.put(IDP_SLUG, SSO_CODE_KIND, { username, clientId: a.clientId }, CODE_SECONDS);
        const back = new URL(a.redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', a.state);
        res.redirect(303, back.toString());
      } catch (err) {
        next(err);
      }
    });
  },
};
