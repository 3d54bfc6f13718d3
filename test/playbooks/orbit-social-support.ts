import type { Page } from 'playwright-core';

import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import { live } from './live-worker-support';
import { expectPlaybookResult, type Json, readable, runAction, type TestOrg } from './playbook-support';

/**
 * What orbit-social.playbook.test.ts routes and runs: the built-in registry routing against Orbit (no browser), the
 * words people use and the playbook and values each routes to, the phrases that ask for followers or for whom one
 * follows, and, against the live AgentLink (live-worker-support.ts), requests run in a test organization, a post
 * published through the site's own dialog and the names on a following page.
 */
const registry = builtInPlaybooks();
const orbit = builtInCatalogue('http://localhost:3000').bySlug('orbit', 'sandbox')!;
export const route = (action: string, extra: { parameters?: unknown; startingUrl?: string; mode?: 'read' | 'read_write' } = {}) =>
  registry.route({ action, provider: orbit, parameters: extra.parameters ?? {}, signal: new AbortController().signal, ...extra });

/** Requests in plain words: the playbook each routes to, and the values read from the words. */
export const SOCIAL_ROUTES: [string, string, Record<string, unknown>][] = [
  ['Read my last 5 posts', 'orbit.read-posts', { limit: 5 }],
  ['Show my posts', 'orbit.read-posts', {}],
  ['What did I post recently?', 'orbit.read-posts', {}],
  ['How many likes did my last post get?', 'orbit.read-posts', {}],
  ['Show the posts by Priya Nair', 'orbit.read-posts', { person: 'Priya Nair' }],
  ['How many followers do I have?', 'orbit.read-my-profile', {}],
  ['Get my follower count', 'orbit.read-my-profile', {}],
  ['How many people am I following?', 'orbit.read-my-profile', {}],
  ['List my notifications', 'orbit.read-notifications', {}],
  ['Do I have any new notifications?', 'orbit.read-notifications', {}],
  ['Who liked my post?', 'orbit.read-notifications', {}],
  ['Read my messages', 'orbit.read-messages', {}],
  ['Do I have any unread messages?', 'orbit.read-messages', {}],
  ['Check my inbox', 'orbit.read-messages', {}],
  ['Follow Priya Nair', 'orbit.follow-person', { person: 'Priya Nair' }],
  ['Follow @marcus-webb', 'orbit.follow-person', { person: '@marcus-webb' }],
  ['Start following Lena Fischer', 'orbit.follow-person', { person: 'Lena Fischer' }],
  ['Stop following Marcus Webb', 'orbit.unfollow-person', { person: 'Marcus Webb' }],
  ['Like the latest post by Priya Nair', 'orbit.like-post', { author: 'Priya Nair' }],
  ["Like Priya's last post", 'orbit.like-post', { author: 'Priya' }],
  ["Comment 'Congrats!' on Priya Nair's latest post", 'orbit.comment-on-post', { text: 'Congrats!', author: 'Priya Nair' }],
  ["Reply to Marcus Webb's post with 'Nice'", 'orbit.comment-on-post', { text: 'Nice', author: 'Marcus Webb' }],
  ["Repost Marcus's post", 'orbit.repost-post', { author: 'Marcus' }],
  ['Share the post by Marcus with my network', 'orbit.repost-post', { author: 'Marcus' }],
  ['Who do I follow?', 'orbit.list-following', {}],
  ['List the people I follow', 'orbit.list-following', {}],
  ['Who follows me?', 'orbit.list-following', {}],
  ['Who does Priya Nair follow?', 'orbit.list-following', { person: 'Priya Nair' }],
];

/** Phrases that ask who follows someone. */
export const ASKING_FOR_FOLLOWERS = [
  'Who follows me?',
  'List my followers',
  'Show the people who follow me',
  'Who is following me?',
  'Who follows Marcus Webb?',
];
/** Phrases that ask whom someone follows. */
export const ASKING_FOR_FOLLOWING = [
  'Who do I follow?',
  'Who am I following?',
  'List the people I follow',
  'Show who I am following',
  'Who does Priya Nair follow?',
];

/** Requests whose words match a playbook that writes. */
export const WRITING_ACTIONS = [
  'Follow Priya Nair',
  'Like the latest post by Priya Nair',
  "Comment 'hi' on Priya's latest post",
  'Stop following Marcus Webb',
];

/** People a name is resolved among. */
export const PEOPLE = [
  { username: 'priya-nair', name: 'Priya Nair' },
  { username: 'diego-ramirez', name: 'Diego Ramírez' },
  { username: 'lena-fischer', name: 'Lena Fischer' },
];

export const start = (path = '/') => live.siteUrl('orbit', path);

/** Runs an action in the organization (on Orbit's home page unless extra.startingUrl says otherwise); the final record. */
export const run = async (org: TestOrg, action: string, responseFormat: Record<string, unknown>, extra: Json = {}) =>
  runAction(live, org, { action, startingUrl: extra.startingUrl ?? start('/'), responseFormat, ...extra });

/** Runs an action and expects the playbook to complete it with a valid result, which it returns. */
export const completed = async (
  org: TestOrg,
  playbook: string,
  action: string,
  responseFormat: Record<string, unknown>,
  extra: Json = {},
) => expectPlaybookResult(await run(org, action, responseFormat, extra), responseFormat, playbook);

/** Expects a FAILED record with this error code and a message that contains (or matches) `message`. */
export const failed = (record: Json, code: string, message: RegExp | string) => {
  if (record.status !== 'FAILED') throw new Error(`expected FAILED, got:\n${readable(record)}`);
  expect(record.error).toMatchObject({
    code,
    message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
  });
};

/** Publishes a post through the site's own compose dialog (as a person would, without the playbook). */
export async function publishPost(page: Page, text: string) {
  await page.goto(start('/'));
  await page.getByRole('button', { name: 'Start a post' }).click();
  await page.getByRole('textbox', { name: 'Text editor for creating content' }).fill(text);
  await page.getByRole('dialog', { name: 'Create a post' }).getByRole('button', { name: 'Post', exact: true }).click();
  await page.getByRole('article').filter({ hasText: text }).first().waitFor();
}

/** The names on a following (or followers) page, user_good's following by default. */
export const followingOn = async (page: Page, path = '/in/user_good/following') => {
  await page.goto(start(path));
  return page.locator('main ul[aria-label] li a[href^="/in/"]').allInnerTexts();
};
