import type { Router } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { SiteKit } from '../../../../sandbox/kit/site';
import { C } from '../classes';
import { loadPeople, type Notification, personOf } from '../model';
import { avatar, cls, timeTag } from '../ui';
import { h } from './common';
import { unreadMessages } from './messaging';

/** How long the (simulated, slow) notifications service takes; the page shows a spinner meanwhile. */
export const NOTIFICATIONS_DELAY_MS = 700;

export function notificationRoutes(router: Router, kit: SiteKit) {
  router.get('/notifications', (req, res) => {
    const body = html`<section class="${C.card}" aria-labelledby="notifications-title">
<div class="${C.pad}" style="border-bottom:1px solid #eee"><h1 class="${C.heading}" id="notifications-title">Notifications</h1></div>
<div class="${C.notifMount}" aria-busy="true" aria-live="polite"><div class="${C.spinner}" role="status"><span class="${C.spin}" aria-hidden="true"></span><span>Loading notifications…</span></div></div>
</section>`;
    kit.page(req, res, { title: 'Notifications', body, active: 'notifications' });
  });

  router.get(
    '/notifications/list',
    h(async (_req, res) => {
      const viewer = kit.user(res).username;
      const docs = kit.docs(res);
      const [people, all] = await Promise.all([loadPeople(docs), docs.list<Notification>('notification')]);
      await new Promise((r) => setTimeout(r, NOTIFICATIONS_DELAY_MS));
      const mine = all.filter((n) => n.data.to === viewer).reverse();
      const now = kit.now();
      const list = mine.length
        ? html`<ul class="${C.notifList}" aria-label="Notifications">${mine.map((n) => {
            const actor = personOf(people, n.data.actor);
            return html`<li class="${cls('notifItem', !n.data.read && 'notifUnread')}">${avatar(actor, 'sm')}<a class="${C.notifText}" href="${n.data.link}">${n.data.text}</a>
<span class="${cls('muted', 'small')}">${timeTag(n.createdAt, now)}</span>${n.data.read ? '' : html`<span class="${C.notifDot}"><span class="${C.srOnly}">Unread</span></span>`}</li>`;
          })}</ul>`
        : html`<p class="${C.empty}">You're all caught up. New notifications will show up here.</p>`;
      res.json({ html: list.value, unread: mine.filter((n) => !n.data.read).length });
    }),
  );

  router.post(
    '/notifications/read',
    h(async (_req, res) => {
      const viewer = kit.user(res).username;
      const docs = kit.docs(res);
      for (const n of await docs.list<Notification>('notification')) {
        if (n.data.to === viewer && !n.data.read) await docs.update<Notification>(n.id, { ...n.data, read: true });
      }
      res.json({ ok: true });
    }),
  );

  router.get(
    '/badges',
    h(async (_req, res) => {
      const viewer = kit.user(res).username;
      // Asked in the same tick, the two lists go to the database as one statement (batched-lists.ts).
      const [all, messages] = await Promise.all([kit.docs(res).list<Notification>('notification'), unreadMessages(kit, res)]);
      res.json({ notifications: all.filter((n) => n.data.to === viewer && !n.data.read).length, messages });
    }),
  );
}
