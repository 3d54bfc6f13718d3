import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { parseCount } from '../../../agent/playbooks/shape';
import { listLimit, looseEnum, openPath, siteUrl, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated } from '../../../browser/locator-reads';
import { findPerson, myUsername, personParameter } from './people';

/**
 * Orbit: the people the signed-in user (or the person named) follows, or with direction "followers" who
 * follow them, most recent first. Follows ../site/pages/people.ts: /in/<username>/following and
 * /in/<username>/followers (linked from the home page's Followers / Following) list the people ("People you
 * follow", "Your followers") with their headline and follower count. "Who do I follow?" and "Who follows me?" differ
 * only in words the router ignores, so one playbook serves both and the direction is read from the action
 * when the parameters do not give it.
 */
const MAX = 200;

const paramsSchema = withParamAliases(
  {
    limit: ['count', 'max', 'n', 'top', 'first'],
    direction: ['list', 'which', 'tab'],
    person: ['user', 'username', 'name', 'of', 'whose'],
  },
  z
    .object({
      direction: looseEnum<['following', 'followers']>(['following', 'followers']).optional(),
      person: personParameter.optional(),
      limit: listLimit(MAX).optional(),
    })
    .strict(),
);

export type OrbitListPeopleParams = z.infer<typeof paramsSchema>;

const ITEM_ALIASES = {
  name: ['fullName', 'displayName', 'person', 'who'],
  username: ['handle', 'login', 'userName'],
  headline: ['title', 'occupation', 'bio', 'description'],
  followers: ['followerCount', 'followersCount'],
  profileUrl: ['url', 'link', 'profile', 'href'],
};

/** "Who follows me?", "my followers", "people who follow Priya", "who is following me": the other direction. */
export const ASKS_FOR_FOLLOWERS =
  /\bfollowers\b|\bfollow(?:s|ed|ing)? me\b|\bwho(?:\s+(?:else|all|is|are))?\s+follow(?:s|ed|ing)?\b|\b(?:is|are)\s+following\b/i;

export const orbitListFollowing = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.list-following',
  description:
    'Lists the people the signed-in user (or person) follows on Orbit, or who follow them (parameters: direction following|followers, read from the action when not given; person; limit), most recent first: name, user name, headline, follower count, profile URL.',
  examples: [
    'Who do I follow?',
    'List the people I follow',
    'Show who I am following',
    'Get the list of accounts I follow on Orbit',
    'Which people am I following?',
    'Who follows me?',
    'List my followers',
    'Show the people who follow me',
    'Who does Priya Nair follow?',
    'Who follows Marcus Webb?',
  ],
  writes: false,
  fromSentence: { limit: 'count', person: 'person' },
  resultFields: {
    people: [{ name: 'string', username: 'string', headline: 'string?', followers: 'integer?', profileUrl: 'url' }],
    count: 'integer - how many people were listed',
    direction: 'string - following or followers',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const tab = ctx.params.direction ?? (ASKS_FOR_FOLLOWERS.test(ctx.action) ? 'followers' : 'following');
    const who = ctx.params.person ? (await findPerson(ctx, ctx.params.person)).username : await myUsername(ctx);
    await openPath(ctx, `/in/${encodeURIComponent(who)}/${tab}`, `${tab} of ${who}`, { notFound: `Orbit has no profile /in/${who}` });
    const people = await ctx.step(
      'extract',
      `the list under heading '${tab === 'following' ? 'People … follow(s)' : '… followers'}'`,
      async () => {
        // The list is named like its heading ("People you follow", "Priya Nair's followers"); none when it is empty.
        const heading = page.locator('#connections-title');
        await heading.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
        return evaluateAllIsolated(
          page.getByRole('list', { name: (await heading.innerText()).trim(), exact: true }).locator(':scope > li'),
          (lis) =>
            lis.map((li) => {
              const link = li.querySelector('a[href^="/in/"]') as HTMLElement | null;
              const paragraphs = Array.from(li.querySelectorAll('p')) as HTMLElement[];
              return {
                href: link?.getAttribute('href') ?? '',
                name: link?.innerText.trim() ?? '',
                headline: paragraphs[0]?.innerText.trim() ?? '',
                followers: paragraphs[1]?.innerText ?? '',
              };
            }),
        );
      },
    );
    const items = people.slice(0, ctx.params.limit ?? MAX).map((p) => {
      const username = decodeURIComponent(p.href.split('/')[2] ?? '');
      return {
        name: p.name,
        username,
        headline: p.headline || null,
        followers: parseCount(p.followers),
        profileUrl: siteUrl(ctx, `/in/${encodeURIComponent(username)}`),
      };
    });
    return ctx.fitList({
      items,
      itemAliases: ITEM_ALIASES,
      extras: { count: items.length, direction: tab },
      extraAliases: { count: ['total', 'length', 'size', 'returned'] },
    });
  },
});
