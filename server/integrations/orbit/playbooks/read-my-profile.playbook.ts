import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { parseCount } from '../../../agent/playbooks/shape';
import { withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateIsolated } from '../../../browser/isolated-world';
import { findPerson, openProfile, personParameter } from './people';

/**
 * Orbit: read the signed-in user's own profile (or the profile of the person the request names, found as
 * people.ts does). Follows the markup of ../site/pages/people.ts: /me redirects to /in/<username>, whose <section aria-label="Profile"> holds the name (h1), the headline
 * and location (the paragraphs after it) and the audience counts (<ul aria-label="Audience">).
 */
const FIELDS_ALIASES = {
  name: ['fullName', 'displayName'],
  username: ['handle', 'login', 'user', 'userName'],
  headline: ['title', 'tagline', 'occupation'],
  location: ['city', 'place'],
  about: ['bio', 'summary', 'description'],
  followers: ['followerCount', 'followersCount', 'numFollowers'],
  following: ['followingCount', 'numFollowing'],
  profileUrl: ['url', 'link', 'profileLink'],
};

const paramsSchema = withParamAliases(
  { person: ['user', 'username', 'handle'] },
  z.object({ person: personParameter.optional() }).passthrough(),
);

export type OrbitReadProfileParams = z.infer<typeof paramsSchema>;

export const orbitReadMyProfile = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.read-my-profile',
  description:
    "Reads the signed-in user's own Orbit profile, or a person's when the request names one (parameter: person): name, username, headline, location, about, followers, following, profile URL.",
  examples: [
    'Read my profile',
    'Get my profile details',
    'Show me my Orbit profile',
    'My profile',
    'What does my profile say?',
    'Who am I on Orbit?',
    'Open my own profile and read my headline',
    'Get my follower count',
    'How many followers do I have?',
    'How many people follow me?',
    'How many people am I following?',
    'Get my follower and following counts',
    'What is my headline?',
    'Where am I located according to my profile?',
    "Show me Priya Nair's profile",
    'How many followers does Marcus Webb have?',
    "What is Lena Fischer's headline?",
  ],
  writes: false,
  // "How many followers does Priya have?" is about Priya: a "my profile" playbook must not answer it with the user's.
  fromSentence: { person: 'person' },
  resultFields: {
    name: 'string - full name',
    username: 'string',
    headline: 'string',
    location: 'string',
    about: 'string? - the About section',
    followers: 'integer - how many people follow the user',
    following: 'integer - how many people the user follows',
    profileUrl: 'url',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const onOwnProfile = async () =>
      /^\/in\/[^/]+\/?$/.test(new URL(page.url()).pathname) &&
      (await page.locator('nav[aria-label="Main"] a[href="/me"][aria-current="page"]').count()) > 0;
    if (ctx.params.person) await openProfile(ctx, await findPerson(ctx, ctx.params.person));
    else if (!(await onOwnProfile())) {
      await ctx.step('navigate', 'my profile (/me)', async () => {
        await page.goto(new URL('/me', ctx.provider.homeUrl).toString(), { waitUntil: 'domcontentloaded' });
      });
    }
    const profile = page.locator('section[aria-label="Profile"]');
    const fields = await ctx.step('extract', "section 'Profile'", async () => {
      await profile.waitFor({ state: 'visible' });
      // One read of the section's texts: each locator call is a round trip to the browser (about 1.5 ms of CPU on
      // each side), and a profile has eight fields. In AgentLink's isolated world (isolated-world.ts), not through
      // the locator: Playwright would set up its injected script in the page's world for it (about 10 ms a document),
      // and the page's scripts would see every getter this read calls (issue 36).
      // (No named function inside: the bundlers this runs under would wrap it in a helper the page does not have.)
      const texts = await evaluateIsolated(
        page,
        (css: string) => {
          const section = document.querySelector(css);
          if (!section) throw new Error('the profile section left the page');
          return {
            name: (section.querySelector('h1') as HTMLElement | null)?.innerText ?? '',
            paragraphs: [...section.querySelectorAll<HTMLElement>('h1 ~ p')].map((p) => p.innerText),
            counts: [...section.querySelectorAll<HTMLElement>('ul[aria-label="Audience"] li')].map((li) => li.innerText),
            about: (document.querySelector('section[aria-labelledby="about-title"] p') as HTMLElement | null)?.innerText ?? null,
          };
        },
        'section[aria-label="Profile"]',
      );
      const username = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
      const followers = parseCount(texts.counts.find((c) => /follower/i.test(c)) ?? '');
      const following = parseCount(texts.counts.find((c) => /following/i.test(c)) ?? '');
      if (followers === null || following === null) throw new Error('the audience counts were not found');
      return {
        name: texts.name.trim(),
        username,
        headline: (texts.paragraphs[0] ?? '').trim(),
        location: (texts.paragraphs[1] ?? '').split('·')[0].trim(),
        about: texts.about === null ? null : texts.about.trim(),
        followers,
        following,
        profileUrl: page.url(),
      };
    });
    return ctx.fit(fields, FIELDS_ALIASES);
  },
});
