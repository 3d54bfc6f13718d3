import { SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import { type Comment, type Follow, type Issue, type Notice, type Person, type Repo, repoKey, type Star } from './model';
import { type AddDoc, DAY, HOUR } from './seed-common';
import { ATLAS_TITLES } from './seed-issues';

/** Every sandbox test user has a profile, two repositories, stars, followers and a few notifications. */
export function testUserDocs(add: AddDoc): void {
  SEEDED_TEST_USERS.forEach((u, index) => {
    const me = u.username;
    add(
      'person',
      { username: me, name: u.displayName, bio: 'Building things on the web. Sandbox account.', location: 'Earth' } satisfies Person,
      300 * DAY,
    );
    add(
      'repo',
      {
        owner: me,
        name: 'dotfiles',
        description: 'My dotfiles: zsh, tmux and neovim configuration.',
        visibility: 'public',
        language: 'Shell',
        seedStars: 3,
        forks: 0,
        topics: ['dotfiles'],
        readme: '# dotfiles\n\nMy shell setup. Install with:\n\n```\n./install.sh\n```',
      } satisfies Repo,
      13 * DAY + index * 17 * HOUR,
    );
    add(
      'repo',
      {
        owner: me,
        name: 'notes',
        description: 'Private notes and drafts.',
        visibility: 'private',
        language: 'Markdown',
        seedStars: 0,
        forks: 0,
        topics: [],
        readme: '# notes\n\nPersonal notes. Only I can see this repository.',
      } satisfies Repo,
      40 * DAY,
    );
    const dot = repoKey(me, 'dotfiles');
    add(
      'issue',
      {
        repo: dot,
        number: 1,
        title: 'zsh prompt is slow inside large git repositories',
        body: 'In a repository with ~100k files the prompt takes a second to render. Maybe disable the dirty check there?',
        author: 'tobiasw',
        state: 'open',
        labels: ['bug'],
      } satisfies Issue,
      6 * HOUR,
    );
    add(
      'comment',
      { repo: dot, number: 1, author: 'tobiasw', body: 'Setting `DISABLE_UNTRACKED_FILES_DIRTY=true` helps a bit.' } satisfies Comment,
      5 * HOUR,
    );
    // Issues the user filed in their own repositories: one still open, one done.
    add(
      'issue',
      {
        repo: dot,
        number: 2,
        title: 'Add a tmux config for the new laptop',
        body: 'The new laptop has a smaller screen: split panes vertically by default and bind prefix to C-a.',
        author: me,
        state: 'open',
        labels: ['enhancement'],
      } satisfies Issue,
      2 * DAY,
    );
    add(
      'issue',
      {
        repo: repoKey(me, 'notes'),
        number: 1,
        title: 'Move the reading list here',
        body: 'Collect the links from the browser bookmarks in one file.',
        author: me,
        state: 'closed',
        labels: [],
        closedBy: me,
      } satisfies Issue,
      20 * DAY,
    );
    add('comment', { repo: repoKey(me, 'notes'), number: 1, author: me, body: '', event: 'closed' } satisfies Comment, 19 * DAY);
    for (const [owner, name, age] of [
      ['openfoundry', 'atlas', 30 * DAY],
      ['kestrel-labs', 'kestrel', 20 * DAY],
      ['priya-k', 'a11y-checklist', 10 * DAY],
    ] as const) {
      add('star', { repo: repoKey(owner, name), username: me } satisfies Star, age);
    }
    for (const f of ['mlopez', 'priya-k', 'tobiasw']) add('follow', { follower: f, target: me } satisfies Follow, 100 * DAY);
    for (const t of ['jchen', 'noor']) add('follow', { follower: me, target: t } satisfies Follow, 100 * DAY);
    const notices: (Notice & { age: number })[] = [
      {
        recipient: me,
        actor: 'mlopez',
        action: 'commented',
        reason: 'subscribed',
        repo: 'openfoundry/atlas',
        number: 21,
        subject: ATLAS_TITLES[20]![0],
        unread: true,
        age: 50,
      },
      {
        recipient: me,
        actor: 'tobiasw',
        action: 'opened',
        reason: 'owner',
        repo: `${me}/dotfiles`,
        number: 1,
        subject: 'zsh prompt is slow inside large git repositories',
        unread: true,
        age: 6 * HOUR,
      },
      {
        recipient: me,
        actor: 'amara-o',
        action: 'closed',
        reason: 'subscribed',
        repo: 'kestrel-labs/kestrel',
        number: 3,
        subject: 'Docs: middleware ordering',
        unread: false,
        age: 8 * DAY,
      },
    ];
    for (const n of notices) {
      const { age, ...data } = n;
      add('notice', data satisfies Notice, age);
    }
  });
}
