import type { Request, Response, Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import type { Notice, NoticeAction, NoticeReason } from '../model';
import { forgeFor } from '../parts';
import { ago, blankslate, cx, h, icon, wantsJson } from '../ui';

/** The inbox is served by a slower backend than the page: the list arrives after the page, behind a spinner. */
const INBOX_LATENCY_MS = 350;

const REASON: Record<NoticeReason, string> = {
  author: 'Author',
  owner: 'Owner',
  comment: 'Commented',
  subscribed: 'Subscribed',
  mention: 'Mention',
};
const ACTION: Record<NoticeAction, string> = {
  opened: 'opened this issue',
  commented: 'commented',
  closed: 'closed this issue',
  reopened: 'reopened this issue',
};

function item(kit: SiteKit, res: Response, d: Doc<Notice>, now: Date): RawHtml {
  const n = d.data;
  const link = n.number ? `/${n.repo}/issues/${n.number}` : `/${n.repo}`;
  return html`<li class="${cx('fh-notif')} ${n.unread ? cx('fh-notif-unread') : cx('fh-notif-read')}">
  <span class="${cx('fh-notif-dot')}" aria-hidden="true"></span>
  ${icon(n.action === 'closed' ? 'closed' : 'issue', n.action === 'closed' ? cx('fh-ic') : cx('fh-io'))}
  <div class="${cx('fh-notif-main')}">
    <div class="${cx('fh-muted')} ${cx('fh-small')}">${n.repo}${n.number ? ` #${n.number}` : ''}</div>
    <a class="${cx('fh-notif-subject')}" href="${link}">${n.subject}</a>${n.unread ? html`<span class="${cx('fh-sr')}"> (unread)</span>` : ''}
    <div class="${cx('fh-muted')} ${cx('fh-small')}"><strong>${n.actor}</strong> ${ACTION[n.action]} · <span class="${cx('fh-label')} ${cx('fh-vis')}">${REASON[n.reason]}</span> · ${ago(d.createdAt, now)}</div>
  </div>
  ${n.unread ? html`<form method="post" action="${`/notifications/${d.id}/read`}" class="${cx('fh-mark-form')}">${kit.csrfField(res)}<button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-sm')}">Mark as read</button></form>` : ''}
</li>`;
}

export function notificationRoutes(router: Router, kit: SiteKit) {
  const filterOf = (req: Request) => (req.query.filter === 'unread' ? 'unread' : 'all');

  router.get(
    '/notifications/count',
    h(async (_req, res) => {
      const notices = await forgeFor(kit, res).notices();
      res.json({ unread: notices.filter((n) => n.data.unread).length });
    }),
  );

  router.get(
    '/notifications',
    h(async (req, res) => {
      const filter = filterOf(req);
      if (wantsJson(req)) {
        await new Promise((r) => setTimeout(r, INBOX_LATENCY_MS));
        const notices = await forgeFor(kit, res).notices();
        const shown = filter === 'unread' ? notices.filter((n) => n.data.unread) : notices;
        const now = kit.now();
        const list = shown.length
          ? html`<ul class="${cx('fh-list')} ${cx('fh-box')}" aria-label="Notifications">${shown.map((d) => item(kit, res, d, now))}</ul>`
          : blankslate(
              filter === 'unread' ? 'All caught up!' : 'No notifications',
              filter === 'unread'
                ? 'Take a break, write some code, do what you do best.'
                : 'Notifications about issues you take part in show up here.',
              'bell',
            );
        res.json({ html: list.value, unread: notices.filter((n) => n.data.unread).length });
        return;
      }
      const tab = (f: string, label: string) =>
        html`<a href="${f === 'all' ? '/notifications' : `/notifications?filter=${f}`}"${filter === f ? html` aria-current="page"` : ''}>${label}</a>`;
      kit.page(req, res, {
        title: 'Notifications',
        active: 'notifications',
        body: html`<div class="${cx('fh-pagehead')}"><h1>Notifications</h1></div>
<div class="${cx('fh-notifs')}" data-src="${`/notifications${filter === 'unread' ? '?filter=unread' : ''}`}" data-filter="${filter}">
  <div class="${cx('fh-searchrow')}" style="justify-content:space-between;margin-bottom:12px">
    <nav class="${cx('fh-states')}" aria-label="Notification filter">${tab('all', 'All')}${tab('unread', 'Unread')}</nav>
    <form method="post" action="/notifications/read-all" class="${cx('fh-markall-form')}">${kit.csrfField(res)}<button type="submit" class="${cx('fh-btn')}">${icon('check')}Mark all as read</button></form>
  </div>
  <div class="${cx('fh-spinner')}" role="status"><span class="${cx('fh-spin')}" aria-hidden="true"></span>Loading notifications…</div>
  <div class="${cx('fh-notifs-list')}" hidden></div>
</div>`,
      });
    }),
  );

  const done = async (req: Request, res: Response, message: string) => {
    const unread = (await forgeFor(kit, res).notices()).filter((n) => n.data.unread).length;
    if (wantsJson(req)) return void res.json({ unread });
    kit.flash(res, message);
    res.redirect(303, '/notifications');
  };

  router.post(
    '/notifications/read-all',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      for (const n of await forge.notices()) if (n.data.unread) await forge.markRead(n);
      await done(req, res, 'All notifications marked as read');
    }),
  );

  router.post(
    '/notifications/:id/read',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const n = (await forge.notices()).find((d) => d.id === req.params.id);
      if (!n)
        return kit.page(
          req,
          res,
          { title: 'Page not found', body: blankslate('Notification not found', 'It may have been removed.', 'bell') },
          404,
        );
      if (n.data.unread) await forge.markRead(n);
      await done(req, res, 'Marked as read');
    }),
  );
}
