import type { Express, Response } from 'express';

import type { SandboxSessionRecord } from '../../store';
import { findTestUser } from '../test-users';
import type { DeviceBindings, SeenDevice } from './device-binding';
import { deviceMismatch } from './device-binding';
import { html, raw, type RawHtml } from './html';

/**
 * Every simulated site's "app": a page rendered by its own script, the way single-page apps are, which keeps its
 * sign-in where those apps do. user_app's session is a token in the site's IndexedDB and nowhere else (no cookie):
 * the page reads it and calls the site's API with it, so the account stays signed in across runs only when IndexedDB
 * is restored. Cookie sessions work here too. The page shows what the site saw of the device (user agent, time zone
 * its script reports, languages), and user_bound's session is checked against the device it was signed in from.
 */
export const APP_PATH = '/app';
export const APP_API_PATH = '/app/api/me';
/** The IndexedDB database of the app's sign-in, per site: `<slug>-app`, store `auth`, key `token`. */
export const appDatabase = (slug: string) => `${slug}-app`;

export interface AppShellDeps {
  slug: string;
  sidName: string;
  cookies(res: Response): Record<string, string | undefined>;
  resolve(value: string | undefined): Promise<SandboxSessionRecord | null>;
  destroy(value: string): Promise<void>;
  bindings: DeviceBindings;
  authPage(res: Response, status: number, title: string, content: RawHtml): void;
}

/** A value put inside an inline script: JSON, with nothing that could end the script element. */
const scriptValue = (v: unknown) => raw(JSON.stringify(v).replace(/</g, '\\u003c'));

/** The page user_app's sign-in ends on: it keeps the token in IndexedDB, then goes on to `next`. */
export function appHandoff(res: Response, slug: string, token: string, next: string): void {
  res
    .status(200)
    .type('html')
    .send(
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head><body><p>Signing in…</p>
<script>
(function(){var r=indexedDB.open(${scriptValue(appDatabase(slug))},1);
r.onupgradeneeded=function(){r.result.createObjectStore('auth')};
r.onsuccess=function(){var tx=r.result.transaction('auth','readwrite');tx.objectStore('auth').put(${scriptValue(token)},'token');
tx.oncomplete=function(){location.replace(${scriptValue(next)})}};})();
</script></body></html>`.value,
    );
}

const SHELL_SCRIPT = (slug: string) => html`<script>
(function(){
var tz=Intl.DateTimeFormat().resolvedOptions().timeZone,out=document.getElementById('app');
function row(dl,label,key,value){var dt=document.createElement('dt'),dd=document.createElement('dd');dt.textContent=label;dd.textContent=value;dd.setAttribute('data-seen',key);dl.appendChild(dt);dl.appendChild(dd);}
function show(me){out.textContent='';var h=document.createElement('h1');h.textContent='Signed in as '+me.displayName;out.appendChild(h);
var dl=document.createElement('dl');dl.setAttribute('aria-label','Device the site saw');row(dl,'User agent','userAgent',me.seen.userAgent);
row(dl,'Time zone','timeZone',me.seen.timeZone);row(dl,'Languages','acceptLanguage',me.seen.acceptLanguage);out.appendChild(dl);}
function go(token){var headers={'x-time-zone':tz,accept:'application/json'};if(token)headers.authorization='Bearer '+token;
fetch(${scriptValue(APP_API_PATH)},{headers:headers,credentials:'same-origin'}).then(function(r){
if(r.status===401){location.replace('/login?next='+encodeURIComponent(${scriptValue(APP_PATH)}));return null;}return r.json();})
.then(function(me){if(me)show(me);},function(){out.textContent='The app could not reach the site.';});}
var req;try{req=indexedDB.open(${scriptValue(appDatabase(slug))},1);}catch(e){return go(null);}
req.onupgradeneeded=function(){req.result.createObjectStore('auth');};req.onerror=function(){go(null);};
req.onsuccess=function(){var g=req.result.transaction('auth').objectStore('auth').get('token');g.onsuccess=function(){go(g.result||null);};g.onerror=function(){go(null);};};
})();
</script>`;

export function mountAppShell(app: Express, deps: AppShellDeps): void {
  app.get(APP_PATH, (_req, res) => {
    deps.authPage(res, 200, 'Your account', html`<div id="app" role="status">Loading your account…</div>${SHELL_SCRIPT(deps.slug)}`);
  });

  app.get(APP_API_PATH, async (req, res, next) => {
    try {
      const bearer = /^Bearer ([A-Za-z0-9_-]{1,100})$/.exec(req.get('authorization') ?? '')?.[1];
      const value = bearer ?? deps.cookies(res)[deps.sidName];
      const session = await deps.resolve(value);
      if (!session || !value) return res.status(401).json({ error: 'not signed in' });
      const seen: Required<SeenDevice> = { userAgent: req.get('user-agent') ?? '', timeZone: req.get('x-time-zone') ?? '' };
      const user = findTestUser(session.username);
      if (user?.behaviour === 'device-bound') {
        const bound = await deps.bindings.find(session.id);
        const why = bound && deviceMismatch(bound, seen);
        if (why) {
          // Signed out for good, as a site that sees a stolen session does: the sign-in's device must sign in again.
          await deps.destroy(value);
          await deps.bindings.drop(session.id);
          return res.status(401).json({ error: `signed out: this session was presented by ${why}` });
        }
      }
      res.json({
        username: session.username,
        displayName: user?.displayName ?? session.username,
        seen: { ...seen, acceptLanguage: req.get('accept-language') ?? '' },
      });
    } catch (err) {
      next(err);
    }
  });
}
