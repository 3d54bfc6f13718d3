import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { collapse, listLimit, openPath, siteUrl, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * Orbit: read the signed-in user's inbox, most recent conversation first. Follows
 * ../site/pages/messaging.ts: /messaging lists the "Conversations", each with the other person, the time
 * and text of the last message ("You: …" when the user wrote it) and "<n> unread". Only the list is read:
 * opening a conversation marks its messages read on Orbit, and reading the inbox must not change what is
 * unread (so a conversation with several unread messages shows its newest one, and the count).
 */
const MAX = 50;

const paramsSchema = withParamAliases(
  { limit: ['count', 'max', 'n', 'top', 'first', 'last'], unreadOnly: ['unread', 'onlyUnread', 'new'] },
  z
    .object({
      limit: listLimit(MAX).optional(),
      unreadOnly: z.boolean().optional(),
    })
    .strict(),
);

export type OrbitReadMessagesParams = z.infer<typeof paramsSchema>;

const ITEM_ALIASES = {
  with: ['name', 'from', 'person', 'contact', 'sender', 'participant', 'otherPerson'],
  username: ['handle', 'login', 'withUsername'],
  lastMessage: ['message', 'text', 'snippet', 'preview', 'body', 'content', 'lastMessageText'],
  fromMe: ['lastMessageFromMe', 'sentByMe', 'mine', 'isMine'],
  at: ['time', 'date', 'timestamp', 'sentAt', 'lastMessageAt', 'when', 'datetime', 'updatedAt'],
  unread: ['unreadCount', 'numUnread', 'unreadMessages'],
  conversationUrl: ['url', 'link', 'threadUrl', 'href'],
};

export const orbitReadMessages = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.read-messages',
  description:
    "Reads the signed-in user's Orbit inbox, most recent conversation first (parameters: limit, unreadOnly), without opening (and so marking read) any: who, last message, time, unread count, link.",
  examples: [
    'Read my messages',
    'Do I have any unread messages?',
    'Show my unread messages',
    'List my conversations',
    'Check my inbox',
    'Who messaged me recently?',
    'What are my latest DMs?',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    conversations: [
      {
        with: 'string - the other person',
        username: 'string',
        lastMessage: 'string',
        fromMe: 'boolean - whether the user wrote the last message',
        at: 'datetime? - when the last message was sent',
        unread: 'integer - unread messages in the conversation',
        conversationUrl: 'url',
      },
    ],
    count: 'integer - how many conversations were read',
    unreadMessages: 'integer - unread messages in them',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const unreadOnly = params.unreadOnly ?? /\b(?:unread|new|unseen)\b/i.test(ctx.action);
    await openPath(ctx, '/messaging', 'messaging (/messaging)');
    const raw = await ctx.step('extract', "list 'Conversations'", async () => {
      const list = page.getByRole('list', { name: 'Conversations' });
      await until(
        'the inbox to show',
        async () => (await list.count()) > 0 || (await page.getByText('No messages yet.').count()) > 0,
        waitBudget(ctx),
      );
      return evaluateAllIsolated(list.locator('li > a[href^="/messaging/"]'), (links) =>
        links.map((a) => {
          const spans = Array.from(a.querySelectorAll('span')) as HTMLElement[];
          const hidden = spans.map((s) => s.textContent ?? '').find((t) => /^\d+ unread$/.test(t.trim()));
          const snippet = a.querySelector('div > div:nth-of-type(2)') as HTMLElement | null;
          return {
            href: a.getAttribute('href') ?? '',
            name: spans[1]?.innerText ?? '',
            at: a.querySelector('time')?.getAttribute('datetime') ?? null,
            snippet: snippet?.innerText ?? '',
            unread: hidden ? Number.parseInt(hidden, 10) : 0,
          };
        }),
      );
    });
    const all = raw.map((c) => {
      const username = decodeURIComponent(c.href.split('/')[2] ?? '');
      const snippet = collapse(c.snippet);
      const fromMe = snippet.startsWith('You: ');
      return {
        with: collapse(c.name),
        username,
        lastMessage: fromMe ? snippet.slice(5) : snippet,
        fromMe,
        at: c.at,
        unread: c.unread,
        conversationUrl: siteUrl(ctx, `/messaging/${encodeURIComponent(username)}`),
      };
    });
    const items = (unreadOnly ? all.filter((c) => c.unread > 0) : all).slice(0, params.limit ?? MAX);
    return ctx.fitList({
      items,
      itemAliases: ITEM_ALIASES,
      extras: { count: items.length, unreadMessages: items.reduce((n, c) => n + c.unread, 0) },
      extraAliases: {
        count: ['total', 'length', 'size', 'returned'],
        unreadMessages: ['unread', 'unreadCount', 'numUnread', 'totalUnread'],
      },
    });
  },
});
