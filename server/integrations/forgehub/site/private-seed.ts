import type { SeedDoc } from '../../../sandbox/kit/site';
import { PRIVATELY_SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import { type Issue, type Person, type Repo, repoKey } from './model';

const DAY = 24 * 60;

/**
 * What ForgeHub seeds for the test users that get only private content (PRIVATELY_SEEDED_TEST_USERS): a profile and
 * two private repositories, hello-world (with an open issue) and notes, so that user_stepup has repositories to
 * delete. Private repositories are seen by their owner only: every other user's lists, searches and counts stay as
 * they were, and the user stars and follows nobody.
 */
export function forgehubPrivateSeed(): SeedDoc[] {
  return PRIVATELY_SEEDED_TEST_USERS.flatMap((u) => {
    const me = u.username;
    const repo = (name: string, description: string, readme: string): Repo => ({
      owner: me,
      name,
      description,
      visibility: 'private',
      language: 'Markdown',
      seedStars: 0,
      forks: 0,
      topics: [],
      readme,
    });
    return [
      {
        kind: 'person',
        data: {
          username: me,
          name: u.displayName,
          bio: 'Sandbox account that confirms sensitive actions.',
          location: 'Earth',
        } satisfies Person,
        ageMinutes: 200 * DAY,
      },
      {
        kind: 'repo',
        data: repo('hello-world', 'My first repository.', '# hello-world\n\nMy first repository on ForgeHub.'),
        ageMinutes: 30 * DAY,
      },
      {
        kind: 'issue',
        data: {
          repo: repoKey(me, 'hello-world'),
          number: 1,
          title: 'Say hello in more languages',
          body: 'Add "hola" and "bonjour" to the README.',
          author: me,
          state: 'open',
          labels: ['enhancement'],
        } satisfies Issue,
        ageMinutes: 3 * DAY,
      },
      {
        kind: 'repo',
        data: repo('notes', 'Private notes and drafts.', '# notes\n\nPersonal notes. Only I can see this repository.'),
        ageMinutes: 40 * DAY,
      },
    ];
  });
}
