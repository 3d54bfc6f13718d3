import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { collapse, listLimit, openPath, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * ForgeHub: read the signed-in user's notifications, newest first. Follows
 * ../site/pages/notifications.ts: /notifications (or ?filter=unread) loads its list after the page behind a
 * spinner; each item names the repository and issue ("openfoundry/atlas #21"), the subject (a link), who did
 * what ("mlopez commented"), why the user gets it (Author, Owner, Subscribed …), the time, and "(unread)".
 * Nothing is marked read (that takes "Mark as read").
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

export type ForgehubNotificationsParams = z.infer<typeof paramsSchema>;

const ACTIONS: Record<string, string> = {
  'opened this issue': 'opened',
  commented: 'commented',
  'closed this issue': 'closed',
  'reopened this issue': 'reopened',
};

const ITEM_ALIASES = {
  repository: ['repo', 'fullName', 'repositoryName'],
  number: ['issueNumber', 'issue', 'num'],
  subject: ['title', 'text', 'message', 'description', 'summary'],
  actor: ['from', 'who', 'by', 'user', 'login'],
  action: ['type', 'kind', 'event', 'what'],
  reason: ['why', 'category'],
  url: ['link', 'href', 'target'],
  at: ['time', 'date', 'timestamp', 'createdAt', 'when', 'datetime', 'updatedAt'],
  unread: ['isUnread', 'new', 'isNew', 'unseen'],
};

export const forgehubReadNotifications = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.read-notifications',
  description:
    "Reads the signed-in user's ForgeHub notifications, newest first, without marking them read (parameters: limit, unreadOnly): repository, issue number, subject, who did what, why, time, unread.",
  examples: [
    'List my notifications',
    'Read my notifications',
    'Do I have any unread notifications on ForgeHub?',
    'Show my unread notifications',
    "What's new in my ForgeHub inbox?",
    'Check my alerts',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    notifications: [
      {
        repository: 'string - owner/name',
        number: 'integer? - the issue',
        subject: 'string',
        actor: 'string - who did it',
        action: 'string - opened, commented, closed or reopened',
        reason: 'string - why the user got it: Author, Owner, Commented, Subscribed, Mention',
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
    await openPath(
      ctx,
      unreadOnly ? '/notifications?filter=unread' : '/notifications',
      unreadOnly ? 'unread notifications' : 'notifications',
    );
    const raw = await ctx.step('extract', "list 'Notifications'", async () => {
      const list = page.getByRole('list', { name: 'Notifications' });
      const blank = page.getByRole('heading', { name: /^(All caught up!|No notifications)$/ });
      const failed = page.getByText('We could not load your notifications.');
      await until(
        'the notifications to load',
        async () => (await list.count()) > 0 || (await blank.count()) > 0 || (await failed.count()) > 0,
        waitBudget(ctx),
      );
      if ((await failed.count()) > 0) throw new Error('ForgeHub could not load the notifications');
      return evaluateAllIsolated(list.locator(':scope > li'), (lis) =>
        lis.map((li) => {
          const main = li.querySelector('div') as HTMLElement | null;
          const lines = main ? (Array.from(main.children) as HTMLElement[]) : [];
          const subject = main?.querySelector('a[href]') as HTMLElement | null;
          const who = lines[lines.length - 1] ?? null;
          return {
            where: lines[0]?.innerText ?? '',
            subject: subject?.innerText ?? '',
            href: subject?.getAttribute('href') ?? '',
            actor: (who?.querySelector('strong') as HTMLElement | null)?.innerText ?? '',
            line: who?.innerText ?? '',
            reason: (who?.querySelector('span') as HTMLElement | null)?.innerText ?? '',
            at: who?.querySelector('time')?.getAttribute('datetime') ?? null,
            unread: /\(unread\)/.test(main?.textContent ?? ''),
          };
        }),
      );
    });
    const origin = new URL(ctx.provider.homeUrl).origin;
    const all = raw.map((n) => {
      const where = /^(\S+\/\S+)(?: #(\d+))?$/.exec(collapse(n.where));
      const actor = collapse(n.actor);
      const did = collapse(n.line).slice(actor.length).split('·')[0]!.trim();
      return {
        repository: where?.[1] ?? collapse(n.where),
        number: where?.[2] ? Number(where[2]) : null,
        subject: collapse(n.subject),
        actor,
        action: ACTIONS[did] ?? did,
        reason: collapse(n.reason),
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
