import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { collapse, listLimit, openPath, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * Orbit: read the signed-in user's notifications, newest first. Follows ../site/pages/notifications.ts:
 * /notifications loads its list after the page (a spinner, then the "Notifications" list or "You're all
 * caught up"); each item is a link with the text ("Priya Nair liked your post"), a time, and "Unread" for
 * the ones not seen yet. Orbit marks them seen once the list is shown, as it does for anyone who opens the
 * page (in read mode that request is not sent, and they stay unread).
 */
const MAX = 100;

const paramsSchema = withParamAliases(
  { limit: ['count', 'max', 'n', 'top', 'first', 'last'], unreadOnly: ['unread', 'onlyUnread', 'new'] },
  z
    .object({
      limit: listLimit(MAX).optional(),
      unreadOnly: z.boolean().optional(),
    })
    .strict(),
);

export type OrbitNotificationsParams = z.infer<typeof paramsSchema>;

/** What happened, from the notification's wording (the page shows nothing else that says it). */
const KINDS: [RegExp, string][] = [
  [/ liked your comment/, 'comment-like'],
  [/ liked your /, 'like'],
  [/ commented on /, 'comment'],
  [/ (?:started following|followed) you/, 'follow'],
  [/ reposted /, 'repost'],
  [/ viewed your profile/, 'profile-view'],
  [/ (?:sent you a message|messaged you)/, 'message'],
];
const ACTOR = /^(.+?)(?: and \d+ others?)? (?:liked|commented|started following|followed|reposted|viewed|sent|messaged)\b/;

const ITEM_ALIASES = {
  text: ['message', 'title', 'description', 'content', 'body'],
  type: ['kind', 'category', 'action', 'reason'],
  actor: ['from', 'who', 'by', 'user', 'person'],
  url: ['link', 'href', 'target'],
  at: ['time', 'date', 'timestamp', 'createdAt', 'when', 'datetime', 'receivedAt'],
  unread: ['isUnread', 'new', 'isNew', 'unseen'],
};

export const orbitReadNotifications = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.read-notifications',
  description:
    "Reads the signed-in user's Orbit notifications, newest first (parameters: limit, unreadOnly): text, kind, who, link, time, unread.",
  examples: [
    'List my notifications',
    'Read my notifications',
    'Do I have any new notifications?',
    'Show my unread notifications',
    'Who liked my post?',
    'What are my latest 5 notifications?',
    'Check my Orbit alerts',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    notifications: [
      {
        text: 'string',
        type: 'string - like, comment, comment-like, follow, repost, profile-view, message or other',
        actor: 'string? - who did it',
        url: 'url',
        at: 'datetime?',
        unread: 'boolean',
      },
    ],
    count: 'integer - how many were read',
    unreadCount: 'integer - how many of them were unread',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const unreadOnly = params.unreadOnly ?? /\b(?:unread|new|unseen)\b/i.test(ctx.action);
    await openPath(ctx, '/notifications', 'notifications (/notifications)');
    const raw = await ctx.step('extract', "list 'Notifications'", async () => {
      await until(
        'the notifications to load',
        async () =>
          (await page.locator('ul[aria-label="Notifications"]').count()) > 0 ||
          (await page.getByText("You're all caught up").count()) > 0 ||
          (await page.getByText('couldn’t load your notifications').count()) > 0,
        waitBudget(ctx),
      );
      if ((await page.getByText('couldn’t load your notifications').count()) > 0) throw new Error('Orbit could not load the notifications');
      return evaluateAllIsolated(page.locator('ul[aria-label="Notifications"] > li'), (lis) =>
        lis.map((li) => {
          const link = li.querySelector('a[href]') as HTMLElement | null;
          return {
            text: link?.innerText ?? '',
            href: link?.getAttribute('href') ?? '',
            at: li.querySelector('time')?.getAttribute('datetime') ?? null,
            unread: Array.from(li.querySelectorAll('span')).some((s) => (s as HTMLElement).textContent?.trim() === 'Unread'),
          };
        }),
      );
    });
    const origin = new URL(ctx.provider.homeUrl).origin;
    const all = raw.map((n) => {
      const text = collapse(n.text);
      return {
        text,
        type: KINDS.find(([re]) => re.test(` ${text}`))?.[1] ?? 'other',
        actor: ACTOR.exec(text)?.[1] ?? null,
        url: new URL(n.href || '/notifications', origin).toString(),
        at: n.at,
        unread: n.unread,
      };
    });
    const items = (unreadOnly ? all.filter((n) => n.unread) : all).slice(0, params.limit ?? MAX);
    return ctx.fitList({
      items,
      itemAliases: ITEM_ALIASES,
      extras: { count: items.length, unreadCount: items.filter((n) => n.unread).length },
      extraAliases: { count: ['total', 'length', 'size', 'returned'], unreadCount: ['unread', 'numUnread', 'newCount'] },
    });
  },
});
