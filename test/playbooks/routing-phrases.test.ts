import { sameWord } from '../../server/agent/playbooks/action-index';
import { ROUTING_THRESHOLD } from '../../server/agent/playbooks/action-index';
import { sentenceValues } from '../../server/agent/playbooks/sentence-values';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';

/**
 * Routing without a model (issue #24, no browser): opposites never tie with their base verb, verb frames carry
 * the value, the words that differ decide between close actions, and quantities written in words limit lists.
 */
const registry = builtInPlaybooks();
const catalogue = builtInCatalogue('http://localhost:3000');
const route = (slug: 'orbit' | 'forgehub', action: string, mode: 'read' | 'read_write' = 'read_write') =>
  registry.route({
    action,
    provider: catalogue.bySlug(slug, 'sandbox')!,
    parameters: {},
    signal: new AbortController().signal,
    by: 'text',
    mode,
  });
const score = (slug: 'orbit' | 'forgehub', action: string, name: string) =>
  registry.rank(slug, action).find((r) => r.name === name)?.score ?? 0;

describe('opposites', () => {
  it('never takes a negated word for a typo of its base word', () => {
    expect(sameWord('unfollow', 'follow')).toBe(false);
    expect(sameWord('follow', 'unfollow')).toBe(false);
    expect(sameWord('unstar', 'star')).toBe(false);
    expect(sameWord('reopen', 'open')).toBe(false);
    expect(sameWord('repositry', 'repository')).toBe(true);
  });

  it.each(['Unfollow @lena-fischer', 'Un-follow Lena Fischer', 'Stop following Lena Fischer', "Don't follow Lena Fischer anymore"])(
    '%s → unfollow, and the base verb is no match at all',
    async (action) => {
      expect(await route('orbit', action)).toMatchObject({ playbook: { name: 'orbit.unfollow-person' } });
      expect(score('orbit', action, 'orbit.follow-person')).toBeLessThan(ROUTING_THRESHOLD);
    },
  );

  it.each([
    ['forgehub', 'Unstar acme/api'],
    ['forgehub', 'Remove my star from acme/api'],
    ['forgehub', 'Reopen issue #2 in acme/api'],
    ['orbit', "Unlike Marcus Webb's newest post"],
  ] as const)('%s: %s (no playbook does it) runs nothing, not its opposite', async (slug, action) => {
    expect(await route(slug, action)).toMatchObject({ playbook: null });
  });
});

describe('verb frames that carry the value', () => {
  it.each([
    ['Let Jonas Berg know that the demo moved to 3', { recipient: 'Jonas Berg', text: 'the demo moved to 3' }],
    ['Ping Lena Fischer: coffee later?', { recipient: 'Lena Fischer', text: 'coffee later?' }],
    ['Remind @marcus-webb that the review is at noon', { recipient: '@marcus-webb', text: 'the review is at noon' }],
  ])('%s → a message %j', async (action, params) => {
    expect(await route('orbit', action)).toMatchObject({ playbook: { name: 'orbit.send-message' }, params });
  });

  it('tells everyone by posting, and is refused in read mode like any write', async () => {
    expect(await route('orbit', 'Let my followers know that the beta is live')).toMatchObject({
      playbook: { name: 'orbit.create-post' },
      params: { text: 'the beta is live' },
    });
    expect(await route('orbit', 'Let Jonas Berg know that I am late', 'read')).toMatchObject({
      playbook: null,
      problem: { kind: 'read-only' },
    });
  });
});

describe('close actions', () => {
  it('lets the words that differ decide ("my issues" / the issues of a repository)', async () => {
    expect(await route('forgehub', 'Show me my issues')).toMatchObject({ playbook: { name: 'forgehub.list-my-issues' } });
    expect(await route('forgehub', 'Show me the issues in acme/api')).toMatchObject({
      playbook: { name: 'forgehub.list-issues' },
      params: { repository: 'acme/api' },
    });
  });
});

describe('quantities in words', () => {
  it.each([
    ['Show at most two posts from my timeline', 2],
    ['List up to five people I follow', 5],
    ['Read no more than twelve posts', 12],
    ['Give me a dozen posts', 12],
    ['Show my 3 most recently starred repos', 3],
    ['Give me two of my repos', 2],
  ])('%s → %i', (action, count) => {
    expect(sentenceValues(action).count).toBe(count);
  });

  it('applies them to the list limit', async () => {
    expect(await route('orbit', 'Show at most two posts from my timeline')).toMatchObject({
      playbook: { name: 'orbit.read-my-feed' },
      params: { limit: 2 },
    });
  });
});
