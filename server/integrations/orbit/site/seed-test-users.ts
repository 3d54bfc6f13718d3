import type { SeedDoc } from '../../../sandbox/kit/site';
import { SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import type { Comment, Follow, Message, Notification, Post } from './model';
import { userSeedKey } from './seed-posts';

const USER_POST_TEXTS = [
  'Excited to share that our team just launched one-click onboarding. Grateful to everyone who tested the early versions!',
  'Passkeys are rolling out to all of our customers this month. Fewer passwords, fewer phishing emails, happier people.',
  'Same-day delivery in three new cities starting Monday. Huge thanks to our drivers and dispatch team.',
  'Ten years in sales taught me one thing: the follow-up is where deals are won.',
  'Our A/B test on the signup page had a surprising winner: the version with fewer words.',
  'Just wrapped up a three-month analytics project. Looking for my next contract — referrals welcome!',
];

/** Every sandbox test user's post (liked and commented on), who they follow and who follows them, messages, notifications. */
export function testUserDocs(docs: SeedDoc[]): void {
  SEEDED_TEST_USERS.forEach((u, i) => {
    const first = u.displayName.split(' ')[0];
    const key = userSeedKey(i);
    const post: Post = {
      key,
      author: u.username,
      text: USER_POST_TEXTS[i % USER_POST_TEXTS.length],
      visibility: 'public',
      likes: ['priya-nair'],
      baseLikes: 23 + i * 7,
      baseReposts: 1,
      baseComments: 0,
    };
    docs.push({ kind: 'post', data: post, ageMinutes: 60 * 24 * 3 + i * 37 });
    docs.push({
      kind: 'comment',
      data: { postKey: key, author: 'marcus-webb', text: `Congratulations, ${first}! Well deserved.` } satisfies Comment,
      ageMinutes: 60 * 24 + i,
    });

    const follows: Follow[] = [
      { follower: u.username, followee: 'priya-nair' },
      { follower: u.username, followee: 'marcus-webb' },
      { follower: 'jonas-berg', followee: u.username },
    ];
    for (const f of follows) docs.push({ kind: 'follow', data: f, ageMinutes: 60 * 24 * 30 });

    const messages: [from: string, to: string, text: string, age: number, read: boolean][] = [
      ['jonas-berg', u.username, `Hi ${first}, great meeting you at the meetup last week!`, 60 * 26, true],
      [u.username, 'jonas-berg', 'Likewise, Jonas! Let me know when you are in town again.', 60 * 25, true],
      ['priya-nair', u.username, `Hey ${first} — are you free for a quick call about the data platform role?`, 60 * 5, true],
      [u.username, 'priya-nair', 'Sure, Thursday afternoon works for me.', 60 * 4, true],
      ['priya-nair', u.username, 'Perfect, I will send an invite for 3pm. Talk soon!', 45, false],
    ];
    for (const [from, to, text, age, read] of messages)
      docs.push({ kind: 'message', data: { from, to, text, read } satisfies Message, ageMinutes: age });

    const notes: [Omit<Notification, 'to'>, number][] = [
      [{ actor: 'priya-nair', type: 'like', text: 'Priya Nair liked your post', link: `/posts/${key}`, read: false }, 35],
      [
        {
          actor: 'marcus-webb',
          type: 'comment',
          text: `Marcus Webb commented on your post: "Congratulations, ${first}! Well deserved."`,
          link: `/posts/${key}`,
          read: false,
        },
        60 * 24 + i,
      ],
      [{ actor: 'jonas-berg', type: 'follow', text: 'Jonas Berg started following you', link: '/in/jonas-berg', read: true }, 60 * 24 * 2],
      [
        {
          actor: 'hannah-cole',
          type: 'view',
          text: 'Hannah Cole and 11 others viewed your profile this week',
          link: '/in/hannah-cole',
          read: true,
        },
        60 * 24 * 4,
      ],
    ];
    for (const [n, age] of notes)
      docs.push({ kind: 'notification', data: { ...n, to: u.username } satisfies Notification, ageMinutes: age });
  });
}
