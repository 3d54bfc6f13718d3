import { html, raw, type RawHtml } from '../../../sandbox/kit/html';
import type { LayoutInput } from '../../../sandbox/kit/site';
import { C } from './classes';
import { ORBIT_CLIENT_JS } from './client';
import { ORBIT_CSS, ORBIT_LOGO } from './styles';
import { cls, icon, type IconName } from './ui';

const NAV: { key: string; label: string; href: string; icon: IconName; badge?: boolean }[] = [
  { key: 'home', label: 'Home', href: '/', icon: 'home' },
  { key: 'network', label: 'My Network', href: '/network', icon: 'network' },
  { key: 'messaging', label: 'Messaging', href: '/messaging', icon: 'messaging', badge: true },
  { key: 'notifications', label: 'Notifications', href: '/notifications', icon: 'notifications', badge: true },
  { key: 'me', label: 'Me', href: '/me', icon: 'me' },
];

/** Orbit's chrome around every logged-in page: header with search and nav, toasts, the client script. */
export function orbitLayout(input: LayoutInput): RawHtml {
  const nav = NAV.map(
    (n) =>
      html`<a class="${cls('navItem', input.active === n.key && 'navActive')}" href="${n.href}"${input.active === n.key ? raw(' aria-current="page"') : ''}>${icon(n.icon, C.navIcon)}<span>${n.label}</span>${n.badge ? html`<span class="${C.badge}" hidden></span>` : ''}</a>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${input.csrfToken}">
<title>${input.title} | Orbit</title>
<style>${raw(ORBIT_CSS)}</style></head>
<body class="${C.body}">
<header class="${C.header}"><div class="${C.headerInner}">
<a class="${C.brand}" href="/" aria-label="Orbit home">${raw(ORBIT_LOGO.replace('role="img" aria-label="Orbit"', 'aria-hidden="true"'))}<span class="${C.brandName}" aria-hidden="true">Orbit</span></a>
<form class="${C.search}" role="search" method="get" action="/search"><label class="${C.srOnly}" for="orbit-search">Search people and posts</label><input id="orbit-search" type="search" name="q" placeholder="Search" autocomplete="off"></form>
<nav class="${C.nav}" aria-label="Main">${nav}</nav>
<form class="${C.signout}" method="post" action="/logout"><input type="hidden" name="_csrf" value="${input.csrfToken}"><button type="submit" class="${cls('btn', 'btnGhost', 'btnSm')}">Sign out</button></form>
</div></header>
<main class="${C.main}" id="main">${input.body}</main>
<div class="${C.backdrop}" hidden></div>
<div class="${C.toastWrap}" aria-live="polite">${input.toast ? html`<div class="${C.toast}" role="status"><span>${input.toast}</span><button type="button" class="${C.toastClose}" aria-label="Dismiss">×</button></div>` : ''}</div>
<script>${raw(ORBIT_CLIENT_JS)}</script>
</body></html>`;
}
