import type { Page } from 'playwright-core';
import { z } from 'zod';

import type { PlaybookContext } from '../../../agent/playbooks/registry';
import { parseCount } from '../../../agent/playbooks/shape';
import { fold, openPath, siteUrl } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * Finding a person on Orbit the way a person does (../site/pages/people.ts): a user name goes straight to
 * /in/<username>; a name is looked up with the header's search (/search?q=…, "People matching …"), word by
 * word when the whole name finds nobody (the search compares accents exactly, people often leave them out).
 * Names are then compared with accents and case ignored; a unique partial name is accepted, an ambiguous one
 * is an error that names the candidates, and nobody is an error that says so: never a guess.
 */
export interface OrbitPerson {
  username: string;
  name: string;
}

/** The person parameter of the playbooks that act on someone: a user name, @handle or display name. */
export const personParameter = z.string().trim().min(1, 'say who: a name or an Orbit user name').max(100);

const USER_NAME = /^@?[a-z0-9_]+(?:-[a-z0-9_]+)*$/;

/** Who `wanted` means among `people`: exact user name, exact name, then a unique partial name. */
export function resolvePerson(wanted: string, people: OrbitPerson[]): OrbitPerson {
  const w = fold(wanted);
  const unique = [...new Map(people.map((p) => [p.username, p])).values()];
  const exact = unique.filter((p) => fold(p.username) === w || fold(p.name) === w);
  if (exact.length === 1) return exact[0]!;
  const words = w.split(' ');
  const partial =
    exact.length > 1
      ? exact
      : unique.filter((p) => words.every((part) => fold(p.name).split(' ').includes(part) || fold(p.username).includes(part)));
  if (partial.length === 1) return partial[0]!;
  if (partial.length === 0) throw new Error(`nobody called "${wanted}" was found on Orbit`);
  throw new Error(`"${wanted}" could be ${partial.map((p) => `${p.name} (${p.username})`).join(', ')}; give the user name`);
}

/** The people the search page lists for `q` (its "People matching …" section). */
async function searchPeople(ctx: PlaybookContext<unknown>, q: string): Promise<OrbitPerson[]> {
  await openPath(ctx, `/search?q=${encodeURIComponent(q)}`, `people matching "${q}" (search)`);
  return ctx.step('extract', `section 'People matching “${q}”'`, () =>
    evaluateAllIsolated(ctx.page.locator('section[aria-labelledby="people-results"] li a[href^="/in/"]'), (links) =>
      links
        .map((l) => ({
          username: decodeURIComponent((l.getAttribute('href') ?? '').split('/')[2] ?? ''),
          name: (l as HTMLElement).innerText.trim(),
        }))
        .filter((p) => p.username && p.name),
    ),
  );
}

/** The person `wanted` names, found on Orbit; throws (inside a traced step) when nobody or several fit. */
export async function findPerson(ctx: PlaybookContext<unknown>, wanted: string): Promise<OrbitPerson> {
  const handle = wanted.trim().replace(/^@/, '');
  if (USER_NAME.test(wanted.trim()) && /[-_]/.test(handle)) {
    const res = await ctx.step('navigate', `profile /in/${handle}`, () =>
      ctx.page.goto(siteUrl(ctx, `/in/${encodeURIComponent(handle)}`), { waitUntil: 'domcontentloaded' }),
    );
    if (res && res.ok()) {
      const name = await ctx.step('extract', "heading of section 'Profile'", async () =>
        (await ctx.page.locator('section[aria-label="Profile"] h1').first().innerText()).trim(),
      );
      return { username: handle, name };
    }
  }
  let found = await searchPeople(ctx, wanted.trim());
  if (found.length === 0) {
    const words = fold(wanted)
      .split(' ')
      .filter((w) => w.length >= 2)
      .slice(0, 3);
    for (const word of words.length > 1 ? words : []) found = found.concat(await searchPeople(ctx, word));
  }
  return ctx.step('extract', `the person "${wanted}" among ${found.length} search results`, async () => resolvePerson(wanted, found));
}

/** Opens a person's profile unless the page shows it already. */
export async function openProfile(ctx: PlaybookContext<unknown>, person: OrbitPerson): Promise<void> {
  if (decodeURIComponent(new URL(ctx.page.url()).pathname) === `/in/${person.username}`) return;
  await openPath(ctx, `/in/${encodeURIComponent(person.username)}`, `profile of ${person.name}`, {
    notFound: `Orbit has no profile /in/${person.username}`,
  });
}

/** The signed-in user's user name: where /me leads. */
export async function myUsername(ctx: PlaybookContext<unknown>): Promise<string> {
  await openPath(ctx, '/me', 'my profile (/me)');
  return decodeURIComponent(new URL(ctx.page.url()).pathname.split('/')[2] ?? '');
}

/** The follower count a profile shows (its "Audience" list). */
export async function followerCountOn(page: Page): Promise<number | null> {
  const counts = await page.locator('section[aria-label="Profile"] ul[aria-label="Audience"] li').allInnerTexts();
  return parseCount(counts.find((c) => /follower/i.test(c)) ?? '');
}

export const PERSON_FIELD_ALIASES = {
  name: ['person', 'fullName', 'displayName', 'who', 'user'],
  username: ['handle', 'login', 'userName', 'personUsername'],
  profileUrl: ['url', 'link', 'profile', 'profileLink'],
};
