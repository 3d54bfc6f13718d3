import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import type { PlaybookContext } from '../../../agent/playbooks/registry';
import { clickToSend, siteUrl, untilVisible, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { findPerson, followerCountOn, openProfile, PERSON_FIELD_ALIASES, personParameter } from './people';

/**
 * Orbit: follow or unfollow a person. Follows ../site/ui.ts (followControl) on a profile: "+ Follow"
 * (a button named "Follow <name>") follows at once; "✓ Following" (named "Following <name>") opens the
 * "Unfollow <name>?" confirmation, whose "Unfollow" button unfollows. The person is found by user name or
 * name (people.ts). Both are idempotent: a person followed already is left as is (and the reverse), and the
 * result says so. The result is read from the profile afterwards.
 */
const paramsSchema = withParamAliases(
  { person: ['username', 'user', 'name', 'who', 'handle', 'profile', 'target', 'recipient'] },
  z.object({ person: personParameter }).strict(),
);

export type OrbitFollowParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  ...PERSON_FIELD_ALIASES,
  followers: ['followerCount', 'followersCount', 'theirFollowers'],
};

/** One of the two playbooks: the same page, the same person lookup, the opposite button. */
async function setFollowing(ctx: PlaybookContext<OrbitFollowParams>, follow: boolean) {
  const { page } = ctx;
  const person = await findPerson(ctx, ctx.params.person);
  await openProfile(ctx, person);
  const followButton = page.getByRole('button', { name: `Follow ${person.name}`, exact: true });
  const followingButton = page.getByRole('button', { name: `Following ${person.name}`, exact: true });

  const before = await ctx.step('extract', `follow state of ${person.name}`, async () => {
    await page.locator('section[aria-label="Profile"]').waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    if ((await followingButton.count()) > 0) return true;
    if ((await followButton.count()) > 0) return false;
    throw new Error(`the profile of ${person.name} has no Follow button (it may be your own)`);
  });

  if (follow && !before) {
    await ctx.step(
      'click',
      `button 'Follow ${person.name}'`,
      async () => {
        await clickToSend(followButton);
        await untilVisible(`button 'Following ${person.name}'`, followingButton, waitBudget(ctx));
      },
      { writes: true },
    );
  }
  if (!follow && before) {
    const dialog = page.getByRole('alertdialog', { name: `Unfollow ${person.name}?` });
    await ctx.step('click', `button 'Following ${person.name}'`, async () => {
      await followingButton.click();
      await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    });
    await ctx.step(
      'click',
      "button 'Unfollow' (confirmation)",
      async () => {
        await clickToSend(dialog.getByRole('button', { name: 'Unfollow', exact: true }));
        await untilVisible(`button 'Follow ${person.name}'`, followButton, waitBudget(ctx));
      },
      { writes: true },
    );
  }

  return ctx.step('extract', `follow state of ${person.name} afterwards`, async () => {
    const now = (await followingButton.count()) > 0;
    if (now !== follow) throw new Error(`${person.name} is ${now ? 'still followed' : 'not followed'}`);
    return {
      name: person.name,
      username: person.username,
      profileUrl: siteUrl(ctx, `/in/${encodeURIComponent(person.username)}`),
      followers: await followerCountOn(page),
      changed: before !== follow,
    };
  });
}

export const orbitFollowPerson = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.follow-person',
  description:
    'Follows a person on Orbit (parameter: person, a user name or name; followed already = no change) and returns them with their follower count.',
  examples: [
    'Follow Priya Nair',
    'Follow @marcus-webb',
    'Follow lena-fischer on Orbit',
    'Start following Priya',
    "Follow Marcus Webb's profile",
    'Connect with Priya Nair',
    'Add Jonas Berg to the people I follow',
  ],
  writes: true,
  fromSentence: { person: 'person' },
  resultFields: {
    following: 'boolean - whether the user follows them now',
    alreadyFollowing: 'boolean - whether they were followed before',
    name: 'string',
    username: 'string',
    profileUrl: 'url',
    followers: 'integer - their follower count afterwards',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const r = await setFollowing(ctx, true);
    const { changed, ...fields } = r;
    return ctx.fit(
      { ...fields, following: true, alreadyFollowing: !changed },
      {
        ...FIELD_ALIASES,
        following: ['followed', 'isFollowing', 'success', 'ok', 'done'],
        alreadyFollowing: ['wasFollowing', 'unchanged'],
      },
    );
  },
});

export const orbitUnfollowPerson = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.unfollow-person',
  description:
    'Unfollows a person on Orbit (parameter: person, a user name or name; not followed = no change), confirming the dialog, and returns them with their follower count.',
  examples: [
    'Unfollow Priya Nair',
    'Unfollow @marcus-webb',
    'Stop following Marcus Webb',
    'Unfollow lena-fischer on Orbit',
    'Remove Priya from the people I follow',
  ],
  writes: true,
  fromSentence: { person: 'person' },
  resultFields: {
    unfollowed: 'boolean - whether the user no longer follows them',
    wasFollowing: 'boolean - whether they were followed before',
    name: 'string',
    username: 'string',
    profileUrl: 'url',
    followers: 'integer - their follower count afterwards',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const r = await setFollowing(ctx, false);
    const { changed, ...fields } = r;
    return ctx.fit(
      { ...fields, unfollowed: true, following: false, wasFollowing: changed },
      { ...FIELD_ALIASES, unfollowed: ['success', 'ok', 'done'], following: ['isFollowing'], wasFollowing: ['alreadyFollowing'] },
    );
  },
});
