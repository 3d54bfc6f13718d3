import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks/registry';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import type { LiveServer } from '../support/live-server';
import type { TestOrg } from './playbook-support';

/**
 * What orbit.playbooks.test.ts routes and runs: the built-in registry routing by text against Orbit (no browser),
 * the actions each playbook must (and no playbook may) match, parameters the playbooks refuse; for the end-to-end
 * tests, the test playbooks that write and then fail (write safety) and a request sent with an Idempotency-Key.
 */
const registry = builtInPlaybooks();
const orbit = builtInCatalogue('http://localhost:3000').bySlug('orbit', 'sandbox')!;
export const route = (action: string, parameters: unknown = {}) =>
  registry.route({ action, provider: orbit, parameters, signal: new AbortController().signal });
export const routed = async (action: string, parameters: unknown = {}) => {
  const r = await route(action, parameters);
  return r.playbook ? r.playbook.name : null;
};

const post = { text: 'Hello' };
const message = { recipient: 'Priya Nair', text: 'Hi' };
/** Actions as people write them, with parameters, and the playbook each routes to. */
export const ROUTED_ACTIONS: [string, Record<string, unknown>, string][] = [
  ['Write a post saying hello to everyone', post, 'orbit.create-post'],
  ['Create a post', post, 'orbit.create-post'],
  ['Publish a new post on Orbit', post, 'orbit.create-post'],
  ['Share an update with my network', post, 'orbit.create-post'],
  ['Compose a short post about our launch', post, 'orbit.create-post'],
  ['Post this on Orbit', post, 'orbit.create-post'],
  ['Please post the following', post, 'orbit.create-post'],
  ['Read my feed', {}, 'orbit.read-my-feed'],
  ['Get the latest posts from my feed', {}, 'orbit.read-my-feed'],
  ["What's on my timeline?", {}, 'orbit.read-my-feed'],
  ['Show me my home feed', { limit: 20 }, 'orbit.read-my-feed'],
  ['My feed', {}, 'orbit.read-my-feed'],
  ['Summarize the 5 latest posts in my news feed', {}, 'orbit.read-my-feed'],
  ['Send a message to Priya Nair', message, 'orbit.send-message'],
  ['Write a direct message to jonas-berg', message, 'orbit.send-message'],
  ['Message Priya saying thanks', message, 'orbit.send-message'],
  ['DM @priya-nair', message, 'orbit.send-message'],
  ['Send Priya Nair a quick note', message, 'orbit.send-message'],
  ['Reply to the message from Priya', message, 'orbit.send-message'],
  ['Write a message to Priya about my new post', message, 'orbit.send-message'],
  ['Read my profile', {}, 'orbit.read-my-profile'],
];

/** What no playbook covers (likes, comments, follows, messages … have their own: orbit-social.playbook.test.ts). */
export const UNROUTED_ACTIONS = [
  'Make an update to my headline',
  'Search for posts about data contracts',
  'Delete my last post',
  'Block Marcus Webb',
  "Change my headline to 'Data person'",
];

/** Parameters orbit.create-post refuses: none, an empty or too long text, an unknown visibility, an unknown field. */
export const BAD_POST_PARAMETERS = [
  {},
  { text: '   ' },
  { text: 'x'.repeat(3001) },
  { text: 'Hi', visibility: 'secret' },
  { text: 'Hi', hashtags: ['a'] },
];

/** People a recipient is resolved among (two with accents or a shared letter in their names). */
export const PEOPLE = [
  { username: 'priya-nair', name: 'Priya Nair' },
  { username: 'diego-ramirez', name: 'Diego Ramírez' },
  { username: 'grace-liu', name: 'Grace Liu' },
  { username: 'lena-fischer', name: 'Lena Fischer' },
];

/** The responseFormat of a feed read: each post's fields, and the count. */
export const FEED_FORMAT = {
  posts: [
    { author: 'string', text: 'string', likes: 'integer', comments: 'integer', reposts: 'integer', postedAt: 'datetime', url: 'url' },
  ],
  count: 'integer',
};

/** POST /api/agent-requests as a client sends it, with an Idempotency-Key (the raw response, for its status and headers). */
export const postAgentRequest = (live: LiveServer, org: TestOrg, body: Record<string, unknown>, idempotencyKey: string) =>
  fetch(`${live.baseUrl}/api/agent-requests`, {
    method: 'POST',
    headers: { ...org.headers, 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });

const testPlaybook = (name: string, example: string, run: Playbook<unknown>['run']): Playbook<unknown> => ({
  providerSlug: 'orbit',
  name,
  description: `test playbook ${name}`,
  examples: [example],
  writes: true,
  parameters: z.object({}).passthrough(),
  resultFields: { sent: 'boolean' },
  run,
});

/**
 * Two writing test playbooks: test.write-then-fail makes its change and then cannot read the result back;
 * test.write-fails breaks in the write step itself.
 */
export const writeThenFailPlaybooks = (): Playbook<unknown>[] => [
  testPlaybook('test.write-then-fail', 'test: write then lose the page', async (ctx) => {
    await ctx.step('click', "button 'Send'", async () => undefined, { writes: true });
    await ctx.step('extract', 'the sent message', async () => {
      throw new Error('the conversation did not load');
    });
    return ctx.fit({ sent: true });
  }),
  testPlaybook('test.write-fails', 'test: the write itself breaks', async (ctx) => {
    await ctx.step(
      'click',
      "button 'Send'",
      async () => {
        throw new Error('the button went away mid-click');
      },
      { writes: true },
    );
    return ctx.fit({ sent: true });
  }),
];
