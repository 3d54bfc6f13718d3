import type { RoutingCase } from './types';

/** DEV requests: free to tune on (the held-out set, held-out.ts, is not). Kept apart from both it and the examples. */
const O = 'orbit' as const;
const F = 'forgehub' as const;

export const DEV: readonly RoutingCase[] = [
  { provider: O, category: 'paraphrase', expect: 'orbit.read-my-profile', action: 'Pull up my Orbit profile' },
  {
    provider: O,
    category: 'opposite',
    expect: 'orbit.unfollow-person',
    action: 'Unfollow @lena-fischer please',
    params: { person: '@lena-fischer' },
  },
  {
    provider: O,
    category: 'verb-frame',
    expect: 'orbit.send-message',
    action: 'Let Jonas Berg know that the demo moved to 3',
    params: { recipient: 'Jonas Berg', text: 'the demo moved to 3' },
  },
  {
    provider: O,
    category: 'verb-frame',
    expect: 'orbit.send-message',
    action: 'Ping Lena Fischer: coffee later?',
    params: { recipient: 'Lena Fischer', text: 'coffee later?' },
  },
  {
    provider: O,
    category: 'quantity',
    expect: 'orbit.read-my-feed',
    action: 'Show at most two posts from my timeline',
    params: { limit: 2 },
  },
  { provider: O, category: 'paraphrase', expect: 'orbit.read-my-feed', action: "What's new on my timeline?" },
  { provider: F, category: 'close-actions', expect: 'forgehub.list-my-issues', action: 'Show me my issues' },
  {
    provider: F,
    category: 'close-actions',
    expect: 'forgehub.list-issues',
    action: 'Show me the issues in acme/api',
    params: { repository: 'acme/api' },
  },
  {
    provider: F,
    category: 'paraphrase',
    expect: 'forgehub.read-repository',
    action: 'How popular is acme/api these days?',
    params: { repository: 'acme/api' },
  },
  {
    provider: F,
    category: 'result-field',
    expect: 'forgehub.list-issues',
    action: 'Open issues in acme/api',
    responseFormat: { issues: [{ title: 'string' }], total: 'integer - how many issues are open' },
    fields: { total: 'total' },
  },
  {
    provider: F,
    category: 'result-field',
    expect: 'forgehub.list-my-repositories',
    action: 'Which repositories are mine?',
    responseFormat: { repos: [{ name: 'string' }], total: 'integer - how many repositories I have' },
    fields: { total: 'count' },
  },
  {
    provider: F,
    category: 'quantity',
    expect: 'forgehub.list-my-repositories',
    action: 'Show my three latest repositories',
    params: { limit: 3 },
  },
  {
    provider: F,
    category: 'opposite',
    expect: 'forgehub.star-repository',
    action: 'Put a star on acme/api',
    params: { repository: 'acme/api' },
  },
  { provider: F, category: 'must-not-run', expect: null, action: 'Unstar acme/api' },
  { provider: F, category: 'must-not-run', expect: null, action: 'Unwatch acme/api' },
  { provider: O, category: 'must-not-run', expect: null, mode: 'read', action: 'Let Marcus Webb know that I am late' },
];
