import { z } from 'zod';

import { ActionIndex, ROUTING_THRESHOLD } from '../../server/agent/playbooks/action-index';
import { actionTerms, stem } from '../../server/agent/playbooks/action-terms';
import { type Playbook, PlaybookRegistry } from '../../server/agent/playbooks/registry';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';

/**
 * The ranked text search that routes actions to playbooks (no browser): phrasings that are no example of any
 * playbook still find the right one, near misses stay below the threshold, and a request that names its
 * playbook skips the search.
 */
const registry = builtInPlaybooks();
const catalogue = builtInCatalogue('http://localhost:3000');
const provider = (slug: 'orbit' | 'forgehub') => catalogue.bySlug(slug, 'sandbox')!;
const route = (slug: 'orbit' | 'forgehub', action: string, extra: Record<string, unknown> = {}) =>
  registry.route({ action, provider: provider(slug), parameters: {}, signal: new AbortController().signal, ...extra });
const best = (slug: 'orbit' | 'forgehub', action: string) => {
  const [top] = registry.rank(slug, action);
  return top && top.score >= ROUTING_THRESHOLD ? top.name : null;
};

describe('words the router compares', () => {
  it('stems plurals and verb forms into one word, and maps the verbs of reading and making to one each', () => {
    expect(['posts', 'posted', 'posting'].map(stem)).toEqual(['post', 'post', 'post']);
    expect(stem('repositories')).toBe('repository');
    expect(actionTerms('Show my repos')).toEqual(actionTerms('List my repositories'));
    expect(actionTerms('Compose a post')).toEqual(actionTerms('Create a post'));
  });

  it('sees values as slot words, and questions as requests to read', () => {
    expect(actionTerms("Send a message to Priya Nair saying 'Hi'")).toEqual(['send', 'messag', 'v_person', 'say', 'v_text']);
    expect(actionTerms('Open issue #3 in openfoundry/atlas')).toEqual(['open', 'issu', 'v_number', 'v_repository']);
    expect(actionTerms('How many followers do I have?')[0]).toBe('read');
    expect(actionTerms('Get my private repositories with their star counts')).toEqual(['read', 'my', 'privat', 'repository']);
  });
});

describe('routing by the ranked text search', () => {
  it.each([
    // As a new user writes them (issue #13), and phrasings that are no playbook's example.
    ['orbit', 'Get my follower count', 'orbit.read-my-profile'],
    ['orbit', 'How many followers do I have?', 'orbit.read-my-profile'],
    ['orbit', "What's my follower count?", 'orbit.read-my-profile'],
    ['orbit', 'How many people are following me?', 'orbit.read-my-profile'],
    ['orbit', 'Show my profile', 'orbit.read-my-profile'],
    ['orbit', "Create a post saying 'Shipping today'", 'orbit.create-post'],
    ['orbit', "Post 'Big news today' on Orbit", 'orbit.create-post'],
    ['orbit', "Publish this: 'Launch day!'", 'orbit.create-post'],
    ['orbit', 'Write a short post saying we are hiring', 'orbit.create-post'],
    ['orbit', 'Make a post about the conference', 'orbit.create-post'],
    ['orbit', "Send a message to Marcus Webb saying 'See you at 3'", 'orbit.send-message'],
    ['orbit', "Send Priya a message saying 'hi'", 'orbit.send-message'],
    ['orbit', "Message Marcus Webb: 'Are we still on?'", 'orbit.send-message'],
    ['orbit', 'Send a DM to @lena-fischer saying hello', 'orbit.send-message'],
    ['orbit', 'Show my feed', 'orbit.read-my-feed'],
    ['orbit', "What's new in my feed?", 'orbit.read-my-feed'],
    ['orbit', 'Get the 10 latest posts in my timeline', 'orbit.read-my-feed'],
    ['orbit', 'List posts from my home feed', 'orbit.read-my-feed'],
    ['forgehub', 'List all my repos', 'forgehub.list-my-repositories'],
    ['forgehub', 'Show me the repositories I own', 'forgehub.list-my-repositories'],
    ['forgehub', 'Which repos do I have?', 'forgehub.list-my-repositories'],
    ['forgehub', 'Get my 3 most recent repositories', 'forgehub.list-my-repositories'],
    ['forgehub', 'Create a repo named demo-app', 'forgehub.create-repository'],
    ['forgehub', 'Make a private repository called secrets', 'forgehub.create-repository'],
    ['forgehub', "Create a new repository 'website'", 'forgehub.create-repository'],
    ['forgehub', "Open a new issue in kestrel-labs/kestrel titled 'Docs typo'", 'forgehub.open-issue'],
    ['forgehub', 'Star kestrel-labs/kestrel', 'forgehub.star-repository'],
    ['forgehub', 'Please star this repo', 'forgehub.star-repository'],
    ['forgehub', 'Add openfoundry/atlas to my stars', 'forgehub.star-repository'],
    ['forgehub', 'Delete my repo hello-world', 'forgehub.delete-repository'],
    ['forgehub', 'Remove the repository acme/old-site', 'forgehub.delete-repository'],
  ] as const)('%s: %s → %s', (slug, action, expected) => {
    expect(best(slug, action)).toBe(expected);
  });

  it.each([
    ['How many followers do I have?', 'orbit.read-my-profile', {}],
    ['Read the 5 latest posts in my feed', 'orbit.read-my-feed', { limit: 5 }],
    [
      "Send a message to Priya Nair saying 'Running late, sorry'",
      'orbit.send-message',
      { recipient: 'Priya Nair', text: 'Running late, sorry' },
    ],
    ["Create a post saying 'Hello from AgentLink'", 'orbit.create-post', { text: 'Hello from AgentLink' }],
  ])('the README quick start: %s → %s with its values', async (action, name, params) => {
    expect(await route('orbit', action)).toMatchObject({ playbook: { name }, params, via: 'text' });
  });

  it.each([
    ['orbit', 'Share a photo album with my network'],
    ['orbit', 'Introduce me to myself as this network knows me'],
    ['forgehub', 'Unstar openfoundry/atlas'],
    ['forgehub', 'Watch openfoundry/atlas'],
    ['forgehub', 'Open issue #3 in openfoundry/atlas'],
  ] as const)('%s: %s → no playbook', (slug, action) => {
    expect(best(slug, action)).toBeNull();
  });

  it('never matches an action that starts with a verb of reading to a playbook that writes', () => {
    const ranked = registry.rank('forgehub', 'List open issues in openfoundry/atlas');
    expect(ranked.find((r) => r.name === 'forgehub.open-issue')?.score ?? 0).toBe(0);
    expect(registry.rank('orbit', 'Show a post saying hi').find((r) => r.name === 'orbit.create-post')?.score ?? 0).toBe(0);
  });

  it('says why nothing was routed: the closest playbooks with their scores and the example that came nearest', async () => {
    const r = await route('orbit', 'Share a photo album with my network');
    expect(r).toMatchObject({ playbook: null, problem: { kind: 'no-match', threshold: ROUTING_THRESHOLD } });
    const closest = (r as { problem: { closest: { name: string; score: number; example: string | null }[] } }).problem.closest;
    expect(closest[0]).toEqual({
      name: 'orbit.repost-post',
      score: expect.any(Number),
      example: 'Share the post by Marcus with my network',
    });
    expect(closest[0]!.score).toBeLessThan(ROUTING_THRESHOLD);
    expect(closest.map((c) => c.score)).toEqual([...closest.map((c) => c.score)].sort((a, b) => b - a));
  });

  it('refuses a playbook that writes for a read-only request, naming it', async () => {
    const r = await route('orbit', "Create a post saying 'hi'", { mode: 'read' });
    expect(r).toMatchObject({ playbook: null, problem: { kind: 'read-only', playbook: 'orbit.create-post' } });
    expect((r as { reason: string }).reason).toContain('orbit.create-post');
  });

  it('does not break a tie between two playbooks by itself', async () => {
    const twin = (name: string): Playbook<unknown> => ({
      providerSlug: 'orbit',
      name,
      description: 'twin',
      examples: ['Wave at everybody'],
      writes: false,
      parameters: z.object({}).passthrough(),
      resultFields: { ok: 'boolean' },
      run: async () => ({ ok: true }),
    });
    const twins = new PlaybookRegistry([twin('orbit.wave-a'), twin('orbit.wave-b')]);
    const r = await twins.route({
      action: 'Wave at everybody',
      provider: provider('orbit'),
      parameters: {},
      signal: new AbortController().signal,
    });
    expect(r).toMatchObject({ playbook: null, problem: { kind: 'ambiguous' } });
  });

  it('routes a request that names its playbook without searching, and refuses a name the provider does not have', async () => {
    expect(await route('orbit', 'anything at all', { playbook: 'orbit.read-my-profile' })).toMatchObject({
      playbook: { name: 'orbit.read-my-profile' },
      via: 'named',
    });
    expect(await route('orbit', 'Read my profile', { playbook: 'forgehub.star-repository' })).toMatchObject({
      playbook: null,
      problem: {
        kind: 'unknown-playbook',
        playbook: 'forgehub.star-repository',
        available: expect.arrayContaining(['orbit.read-my-profile']),
      },
    });
  });

  it('ranks with the examples of the playbooks registered now (the index follows register and unregister)', () => {
    const reg = builtInPlaybooks();
    expect(reg.rank('orbit', 'Read my profile')[0]?.name).toBe('orbit.read-my-profile');
    reg.unregister('orbit.read-my-profile');
    expect(reg.rank('orbit', 'Read my profile').some((r) => r.name === 'orbit.read-my-profile')).toBe(false);
  });

  it('an index of no examples ranks nothing', () => {
    expect(new ActionIndex([]).rank('Read my profile')).toEqual([]);
    expect(registry.rank('orbit', 'the a an')).toEqual([]);
  });
});
