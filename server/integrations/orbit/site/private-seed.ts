import type { SeedDoc } from '../../../sandbox/kit/site';
import { PRIVATELY_SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import type { Message } from './model';

/**
 * What Orbit seeds for the test users that get only private content (PRIVATELY_SEEDED_TEST_USERS): the two
 * conversations every seeded test user has (with Jonas Berg and Priya Nair), so that user_stepup's messages to them
 * go out without a code, and a first message to anyone else asks for one. Messages are seen only by the two people
 * in them: no other user's feed, counts or notifications change.
 */
export function orbitPrivateSeed(): SeedDoc[] {
  return PRIVATELY_SEEDED_TEST_USERS.flatMap((u) => {
    const first = u.displayName.split(' ')[0];
    const messages: [from: string, to: string, text: string, ageMinutes: number, read: boolean][] = [
      ['jonas-berg', u.username, `Hi ${first}, great meeting you at the meetup last week!`, 60 * 26, true],
      [u.username, 'jonas-berg', 'Likewise, Jonas! Let me know when you are in town again.', 60 * 25, true],
      ['priya-nair', u.username, `Hey ${first} — are you free for a quick call about the data platform role?`, 60 * 5, true],
      [u.username, 'priya-nair', 'Sure, Thursday afternoon works for me.', 60 * 4, true],
    ];
    return messages.map(([from, to, text, ageMinutes, read]) => ({
      kind: 'message',
      data: { from, to, text, read } satisfies Message,
      ageMinutes,
    }));
  });
}
