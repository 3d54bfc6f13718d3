import { z } from 'zod';

import type { Playbook } from '../../../agent/playbooks/registry';
import { parseCount } from '../../../agent/playbooks/shape';

/**
 * Orbit: read the signed-in user's own profile. Follows the markup of ../site/pages/people.ts:
 * /me redirects to /in/<username>, whose <section aria-label="Profile"> holds the name (h1), the headline
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

export const orbitReadMyProfile: Playbook<Record<string, never>> = {
  providerSlug: 'orbit',
  name: 'orbit.read-my-profile',
  description:
    "Reads the signed-in user's own Orbit profile: name, username, headline, location, about, followers, following, profile URL.",
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
  ],
  writes: false,
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
  parameters: z.object({}).passthrough() as unknown as z.ZodType<Record<string, never>>,
  async run(ctx) {
    const { page } = ctx;
    const onOwnProfile = async () =>
      /^\/in\/[^/]+\/?$/.test(new URL(page.url()).pathname) &&
      (await page.locator('nav[aria-label="Main"] a[href="/me"][aria-current="page"]').count()) > 0;
    if (!(await onOwnProfile())) {
      await ctx.step('navigate', 'my profile (/me)', async () => {
        await page.goto(new URL('/me', ctx.provider.homeUrl).toString(), { waitUntil: 'domcontentloaded' });
      });
    }
    const profile = page.locator('section[aria-label="Profile"]');
    const fields = await ctx.step('extract', "section 'Profile'", async () => {
      await profile.waitFor({ state: 'visible' });
      const paragraphs = await profile.locator('h1 ~ p').allInnerTexts();
      const counts = await profile.locator('ul[aria-label="Audience"] li').allInnerTexts();
      const about = page.locator('section[aria-labelledby="about-title"] p').first();
      const username = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
      const followers = parseCount(counts.find((c) => /follower/i.test(c)) ?? '');
      const following = parseCount(counts.find((c) => /following/i.test(c)) ?? '');
      if (followers === null || following === null) throw new Error('the audience counts were not found');
      return {
        name: (await profile.locator('h1').first().innerText()).trim(),
        username,
        headline: (paragraphs[0] ?? '').trim(),
        location: (paragraphs[1] ?? '').split('·')[0].trim(),
        about: (await about.count()) > 0 ? (await about.innerText()).trim() : null,
        followers,
        following,
        profileUrl: page.url(),
      };
    });
    return ctx.fit(fields, FIELDS_ALIASES);
  },
};
