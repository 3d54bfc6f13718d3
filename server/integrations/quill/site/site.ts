import { html, raw } from '../../../sandbox/kit/html';
import type { SiteDefinition } from '../../../sandbox/kit/site';
import { cx } from '../../../sandbox/kit/site-app';
import { mountQuillSignIn, PASSKEY_KIND, QUILL_SLUG, type StoredPasskey } from './sign-in';

export { QUILL_SLUG } from './sign-in';

/**
 * Quill: the sandbox's simulated notes site, a real WebAuthn relying party (its RP ID is its own host). Its test users
 * user_passkey and user_passkey_first are offered a passkey after the password; "Sign in with a passkey" signs in with
 * one; Settings › Passkeys lists and removes them (how a person removes AgentLink's passkey at the site).
 */
export const QUILL_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0f766e"/>' +
  '<path d="M44 14c-14 4-22 16-24 34l4 2c2-6 6-10 12-12-4 0-7-1-9-2 8-2 14-10 17-22z" fill="#fff"/></svg>';
const QUILL_CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#134e4a;background:#f0fdfa}
.${cx('qu-top')}{display:flex;justify-content:space-between;align-items:center;padding:12px 20px;background:#fff;border-bottom:1px solid #99f6e4}
.${cx('qu-main')}{max-width:640px;margin:0 auto;padding:20px}
.${cx('qu-list')}{list-style:none;padding:0}
.${cx('qu-list')} li{background:#fff;border:1px solid #99f6e4;border-radius:10px;padding:12px 16px;margin:10px 0}`;

interface Note {
  title: string;
  body: string;
}

const NOTES: Note[] = [
  { title: 'Groceries', body: 'Oat milk, lemons, rye bread.' },
  { title: 'Book club', body: 'Chapter 7 by Thursday.' },
];

export const quillSite: SiteDefinition = {
  slug: QUILL_SLUG,
  brand: { name: 'Quill', css: QUILL_CSS, logoSvg: QUILL_LOGO },
  seed: () => NOTES.map((n, i) => ({ kind: 'note', data: { ...n }, ageMinutes: 30 * (i + 1) })),
  homePath: '/notes',
  layout: ({ title, body, user, csrfToken, toast }) =>
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Quill</title><style>${raw(QUILL_CSS)}</style></head><body>
<header class="${cx('qu-top')}"><strong>Quill</strong><nav><a href="/notes">Notes</a> · <a href="/settings/passkeys">Passkeys</a></nav><span>${user.displayName}
<form method="post" action="/logout" style="display:inline"><input type="hidden" name="_csrf" value="${csrfToken}"><button type="submit">Sign out</button></form></span></header>
${toast ? html`<p role="status">${toast}</p>` : ''}${body}</body></html>`,

  signIn: mountQuillSignIn,

  routes(router, kit) {
    router.get('/', (_req, res) => res.redirect(303, '/notes'));
    router.get('/notes', async (req, res, next) => {
      try {
        const notes = await kit.docs(res).list<Note>('note');
        kit.page(req, res, {
          title: 'Your notes',
          body: html`<main class="${cx('qu-main')}"><h1>Your notes</h1>
<ul class="${cx('qu-list')}" aria-label="Notes">${notes.map((n) => html`<li><h2>${n.data.title}</h2><p>${n.data.body}</p></li>`)}</ul></main>`,
        });
      } catch (err) {
        next(err);
      }
    });
    router.get('/settings/passkeys', async (req, res, next) => {
      try {
        const mine = (await kit.docs(res).list<StoredPasskey>(PASSKEY_KIND)).filter((d) => d.data.username === kit.user(res).username);
        kit.page(req, res, {
          title: 'Passkeys',
          body: html`<main class="${cx('qu-main')}"><h1>Passkeys</h1>
${mine.length === 0 ? html`<p>No passkeys yet.</p>` : ''}<ul class="${cx('qu-list')}" aria-label="Passkeys">${mine.map(
            (d) => html`<li><span>Passkey added ${d.createdAt.toISOString().slice(0, 10)} (${d.data.credentialId.slice(0, 8)}…)</span>
<form method="post" action="/settings/passkeys/${d.id}/remove" style="display:inline">${kit.csrfField(res)}<button type="submit">Remove</button></form></li>`,
          )}</ul></main>`,
        });
      } catch (err) {
        next(err);
      }
    });
    router.post('/settings/passkeys/:id/remove', async (req, res, next) => {
      try {
        const docs = kit.docs(res);
        const found = await docs.get<StoredPasskey>(String(req.params.id));
        if (found?.kind === PASSKEY_KIND && found.data.username === kit.user(res).username) await docs.remove(found.id);
        kit.flash(res, 'Passkey removed.');
        res.redirect(303, '/settings/passkeys');
      } catch (err) {
        next(err);
      }
    });
  },
};
