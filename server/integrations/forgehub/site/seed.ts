import type { SeedDoc } from '../../../sandbox/kit/site';
import { SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import type { Activity, Comment, Follow, Issue, Notice, Person, Repo, Star } from './model';
import { repoKey } from './model';

/**
 * What a fresh tenant of ForgeHub starts with: people and organizations, ~30 public repositories, issues
 * with discussions (openfoundry/atlas has enough to need "Load more"), stars, follows, activity, and for
 * every sandbox test user a couple of own repositories, stars, followers and notifications.
 */
const HOUR = 60;
const DAY = 24 * HOUR;

const PEOPLE: Person[] = [
  {
    username: 'mlopez',
    name: 'Marta López',
    bio: 'Maintainer of atlas. Distributed systems, consensus, and too much coffee.',
    location: 'Lisbon, Portugal',
    company: '@openfoundry',
  },
  {
    username: 'priya-k',
    name: 'Priya Kulkarni',
    bio: 'Frontend and accessibility. If it does not work with a keyboard, it does not work.',
    location: 'Pune, India',
    website: 'priya.dev',
  },
  { username: 'tobiasw', name: 'Tobias Weber', bio: 'Rust, compilers, long bike rides.', location: 'Berlin, Germany' },
  {
    username: 'jchen',
    name: 'Jun Chen',
    bio: 'Data tooling. Making CSV files slightly less terrible.',
    location: 'Toronto, Canada',
    company: '@openfoundry',
  },
  {
    username: 'amara-o',
    name: 'Amara Okafor',
    bio: 'SRE. I write runbooks so you do not have to read logs at 3am.',
    location: 'Lagos, Nigeria',
    company: '@kestrel-labs',
  },
  { username: 'sven', name: 'Sven Lindqvist', bio: 'Embedded things and tiny computers.', location: 'Gothenburg, Sweden' },
  {
    username: 'noor',
    name: 'Noor Haddad',
    bio: 'Designer who codes. Icons, tokens, type.',
    location: 'Amman, Jordan',
    website: 'noor.design',
  },
  {
    username: 'openfoundry',
    name: 'OpenFoundry',
    bio: 'Open-source infrastructure for data teams.',
    location: 'Remote',
    website: 'openfoundry.dev',
    isOrg: true,
  },
  {
    username: 'kestrel-labs',
    name: 'Kestrel Labs',
    bio: 'Fast, typed HTTP tooling for TypeScript.',
    location: 'Amsterdam, Netherlands',
    website: 'kestrel.dev',
    isOrg: true,
  },
];

type SeedRepo = Omit<Repo, 'visibility' | 'topics' | 'forks'> & { topics?: string[]; forks?: number; age: number };

const REPOS: SeedRepo[] = [
  {
    owner: 'openfoundry',
    name: 'atlas',
    language: 'Go',
    seedStars: 1843,
    forks: 212,
    age: 3 * HOUR,
    topics: ['distributed-systems', 'raft', 'database'],
    description: 'A distributed key-value store with Raft consensus and a friendly operator CLI.',
    readme:
      '# atlas\n\nA distributed key-value store built on Raft.\n\n## Features\n\n- Linearizable reads and writes\n- Online membership changes\n- A friendly `atlasctl` operator CLI\n\n## Getting started\n\n```\ngo install openfoundry.dev/atlas/cmd/atlas@latest\natlas serve --data ./data\n```\n\nSee the **docs** folder for configuration and operations guides.',
  },
  {
    owner: 'openfoundry',
    name: 'ledger-db',
    language: 'Go',
    seedStars: 640,
    age: 2 * DAY,
    topics: ['database', 'append-only'],
    description: 'Append-only ledger storage engine with verifiable history.',
  },
  {
    owner: 'openfoundry',
    name: 'pipeline-kit',
    language: 'Python',
    seedStars: 921,
    forks: 88,
    age: 5 * HOUR,
    topics: ['etl', 'data-engineering'],
    description: 'Composable ETL pipelines for Python with retries, backfills and lineage.',
    readme:
      '# pipeline-kit\n\nComposable ETL pipelines for Python.\n\n```\npip install pipeline-kit\n```\n\nDefine steps as plain functions and let pipeline-kit handle **retries**, _backfills_ and lineage.',
  },
  {
    owner: 'openfoundry',
    name: 'docs',
    language: 'Markdown',
    seedStars: 58,
    age: 9 * DAY,
    description: 'Documentation site for OpenFoundry projects.',
  },
  {
    owner: 'kestrel-labs',
    name: 'kestrel',
    language: 'TypeScript',
    seedStars: 5120,
    forks: 301,
    age: 7 * HOUR,
    topics: ['http', 'typescript', 'framework'],
    description: 'A fast, fully typed HTTP framework for Node.js and Bun.',
    readme:
      '# kestrel\n\nA fast, fully typed HTTP framework.\n\n```\nnpm install kestrel\n```\n\n- End-to-end types from route to client\n- Zero-dependency core\n- Works on Node.js and Bun',
  },
  {
    owner: 'kestrel-labs',
    name: 'kestrel-cli',
    language: 'TypeScript',
    seedStars: 412,
    age: 4 * DAY,
    description: 'Scaffold, run and deploy kestrel apps from your terminal.',
  },
  {
    owner: 'kestrel-labs',
    name: 'benchmarks',
    language: 'JavaScript',
    seedStars: 77,
    age: 21 * DAY,
    description: 'Reproducible HTTP framework benchmarks (requests/s, latency, memory).',
  },
  { owner: 'kestrel-labs', name: 'website', language: 'TypeScript', seedStars: 19, age: 12 * DAY, description: 'Source of kestrel.dev.' },
  {
    owner: 'mlopez',
    name: 'raft-notes',
    language: 'Markdown',
    seedStars: 301,
    age: 16 * DAY,
    topics: ['raft', 'notes'],
    description: 'Reading notes on the Raft paper and its follow-ups.',
  },
  {
    owner: 'mlopez',
    name: 'consensus-sim',
    language: 'Go',
    seedStars: 144,
    age: 34 * DAY,
    description: 'Simulate network partitions and watch a Raft cluster recover, step by step.',
  },
  {
    owner: 'priya-k',
    name: 'a11y-checklist',
    language: 'Markdown',
    seedStars: 2210,
    forks: 190,
    age: 26 * HOUR,
    topics: ['accessibility', 'wcag'],
    description: 'A practical accessibility checklist for web teams, mapped to WCAG 2.2.',
  },
  {
    owner: 'priya-k',
    name: 'react-aria-demos',
    language: 'TypeScript',
    seedStars: 188,
    age: 8 * DAY,
    description: 'Accessible widgets (combobox, listbox, dialog) built the hard way.',
  },
  {
    owner: 'priya-k',
    name: 'color-contrast',
    language: 'JavaScript',
    seedStars: 96,
    age: 45 * DAY,
    description: 'Tiny library to compute WCAG contrast ratios and suggest accessible colors.',
  },
  {
    owner: 'tobiasw',
    name: 'tiny-lisp',
    language: 'Rust',
    seedStars: 402,
    age: 3 * DAY,
    topics: ['lisp', 'interpreter'],
    description: 'A small Lisp interpreter in Rust, written to learn about closures and GC.',
  },
  {
    owner: 'tobiasw',
    name: 'bike-routes',
    language: 'Python',
    seedStars: 23,
    age: 60 * DAY,
    description: 'GPX tools for planning long bike rides around Brandenburg.',
  },
  {
    owner: 'tobiasw',
    name: 'wasm-playground',
    language: 'Rust',
    seedStars: 67,
    age: 19 * DAY,
    description: 'Experiments compiling Rust to WebAssembly.',
  },
  {
    owner: 'jchen',
    name: 'csv-surgeon',
    language: 'Python',
    seedStars: 733,
    forks: 41,
    age: 30 * HOUR,
    topics: ['csv', 'cli'],
    description: 'Repair malformed CSV files: quoting, encodings, ragged rows.',
  },
  {
    owner: 'jchen',
    name: 'sqlfmt-lite',
    language: 'Python',
    seedStars: 129,
    age: 11 * DAY,
    description: 'An opinionated SQL formatter with no configuration.',
  },
  {
    owner: 'jchen',
    name: 'parquet-peek',
    language: 'Rust',
    seedStars: 251,
    age: 6 * DAY,
    description: 'Inspect Parquet files from the terminal: schema, row groups, statistics.',
  },
  {
    owner: 'jchen',
    name: 'dataframe-lite',
    language: 'Python',
    seedStars: 38,
    age: 80 * DAY,
    description: 'A minimal dataframe library for teaching.',
  },
  {
    owner: 'amara-o',
    name: 'runbooks',
    language: 'Markdown',
    seedStars: 512,
    age: 2 * DAY + 5 * HOUR,
    topics: ['sre', 'on-call'],
    description: 'Battle-tested on-call runbooks: disk full, cert expiry, noisy neighbours.',
  },
  {
    owner: 'amara-o',
    name: 'k8s-cheatsheet',
    language: 'Shell',
    seedStars: 874,
    age: 14 * DAY,
    description: 'kubectl one-liners I use every day.',
  },
  {
    owner: 'amara-o',
    name: 'incident-bot',
    language: 'Go',
    seedStars: 91,
    age: 27 * DAY,
    description: 'A chat bot that opens incident channels and keeps the timeline.',
  },
  {
    owner: 'sven',
    name: 'pico-weather',
    language: 'C',
    seedStars: 156,
    age: 10 * DAY,
    topics: ['embedded', 'raspberry-pi-pico'],
    description: 'Weather station firmware for the Raspberry Pi Pico W.',
  },
  {
    owner: 'sven',
    name: 'keyboard-firmware',
    language: 'C',
    seedStars: 344,
    age: 22 * DAY,
    description: 'Firmware for a split ergonomic keyboard.',
  },
  {
    owner: 'sven',
    name: 'led-matrix',
    language: 'C',
    seedStars: 47,
    age: 70 * DAY,
    description: 'Drive a 64x32 LED matrix from a microcontroller.',
  },
  {
    owner: 'noor',
    name: 'icon-set',
    language: 'JavaScript',
    seedStars: 1290,
    forks: 77,
    age: 5 * DAY,
    topics: ['icons', 'svg'],
    description: 'A 24px outline icon set, optimized SVGs, MIT licensed.',
  },
  {
    owner: 'noor',
    name: 'design-tokens',
    language: 'CSS',
    seedStars: 210,
    age: 18 * DAY,
    description: 'Design tokens as CSS custom properties, with dark mode.',
  },
  { owner: 'noor', name: 'portfolio', language: 'HTML', seedStars: 12, age: 90 * DAY, description: 'My personal site.' },
  {
    owner: 'mlopez',
    name: 'espresso-log',
    language: 'Python',
    seedStars: 9,
    age: 120 * DAY,
    description: 'Tracking espresso shots: dose, yield, time, taste.',
  },
];

const ATLAS_TITLES: [string, string][] = [
  ['Leader election stalls after network partition heals', 'bug'],
  ['Document snapshot retention settings', 'documentation'],
  ['atlasctl: add `members list --json`', 'enhancement'],
  ['Panic in WAL replay when the last segment is truncated', 'bug'],
  ['Support TLS client certificates for peer traffic', 'enhancement'],
  ['Flaky test: TestMembershipChangeUnderLoad', 'bug'],
  ['Expose Raft term and commit index as Prometheus metrics', 'enhancement'],
  ['Typo in the operations guide', 'documentation'],
  ['Compaction blocks writes for several seconds on large stores', 'bug'],
  ['Add a Helm chart', 'enhancement'],
  ['How do I migrate from v0.8 to v0.9?', 'question'],
  ['Read-only replicas (learners)', 'enhancement'],
  ['Windows build fails: undefined syscall.Flock', 'bug'],
  ['Rename `--data-dir` to `--data` everywhere', 'good first issue'],
  ['Backups: stream snapshots to S3-compatible storage', 'enhancement'],
  ['Clarify consistency guarantees of range reads', 'documentation'],
  ['High memory use when a follower lags far behind', 'bug'],
  ['atlasctl completion for zsh', 'good first issue'],
  ['Graceful shutdown drops in-flight proposals', 'bug'],
  ['Benchmark numbers in README are outdated', 'documentation'],
  ['Watch API: resume from a revision after reconnect', 'enhancement'],
  ['Error message for quorum loss is confusing', 'good first issue'],
  ['Add ARM64 release binaries', 'enhancement'],
  ['Support for TTL on keys', 'enhancement'],
  ['Crash on startup when the data directory is on NFS', 'bug'],
  ['Publish a Docker image', 'enhancement'],
  ['Log lines miss the node id', 'good first issue'],
  ['Improve the getting started guide', 'documentation'],
];
const ATLAS_CLOSED = new Set([2, 5, 8, 13, 18, 20]);
const ISSUE_AUTHORS = ['jchen', 'priya-k', 'tobiasw', 'amara-o', 'sven', 'noor', 'mlopez'];

const OTHER_ISSUES: {
  repo: string;
  author: string;
  title: string;
  body: string;
  labels: string[];
  closed?: boolean;
  age: number;
  comments?: [string, string][];
}[] = [
  {
    repo: 'kestrel-labs/kestrel',
    author: 'priya-k',
    title: 'Type inference breaks for nested route groups',
    body: 'When a route group is nested two levels deep, the handler `req.params` becomes `unknown`.\n\nRepro in the playground: define `/api` → `/v1` → `/users/:id`.',
    labels: ['bug'],
    age: 2 * DAY,
    comments: [
      ['amara-o', 'Same here after upgrading to 3.2.'],
      ['mlopez', 'Looks like the generic is widened in `group()`. I can take a look.'],
    ],
  },
  {
    repo: 'kestrel-labs/kestrel',
    author: 'tobiasw',
    title: 'Streaming responses with backpressure',
    body: 'Could `res.stream()` respect backpressure from the socket? Right now large exports buffer in memory.',
    labels: ['enhancement'],
    age: 5 * DAY,
  },
  {
    repo: 'kestrel-labs/kestrel',
    author: 'jchen',
    title: 'Docs: middleware ordering',
    body: 'The docs do not say whether global middleware runs before or after route-level middleware.',
    labels: ['documentation'],
    closed: true,
    age: 9 * DAY,
    comments: [['amara-o', 'Fixed in the docs site, thanks!']],
  },
  {
    repo: 'kestrel-labs/kestrel',
    author: 'noor',
    title: 'Logo assets for the press kit',
    body: 'Do we have SVG versions of the logo with and without the wordmark?',
    labels: ['question'],
    age: 12 * DAY,
  },
  {
    repo: 'jchen/csv-surgeon',
    author: 'sven',
    title: 'Detect UTF-16 files with BOM',
    body: 'Files exported by an old Excel come as UTF-16 LE with a BOM, and are read as garbage.',
    labels: ['bug'],
    age: 20 * HOUR,
    comments: [['jchen', 'Good catch. BOM sniffing should be easy to add.']],
  },
  {
    repo: 'jchen/csv-surgeon',
    author: 'amara-o',
    title: 'Option to keep ragged rows instead of padding',
    body: 'Sometimes I want to see which rows were ragged; padding hides that.',
    labels: ['enhancement'],
    age: 4 * DAY,
  },
  {
    repo: 'jchen/csv-surgeon',
    author: 'priya-k',
    title: 'README example uses removed flag',
    body: '`--fix-quotes` was renamed to `--quotes` in 0.6.',
    labels: ['documentation'],
    closed: true,
    age: 15 * DAY,
  },
  {
    repo: 'priya-k/a11y-checklist',
    author: 'noor',
    title: 'Add a section about focus-visible styles',
    body: 'Many teams remove outlines without providing `:focus-visible` styles.',
    labels: ['enhancement'],
    age: 3 * DAY,
    comments: [['priya-k', 'Yes! Draft coming this week.']],
  },
  {
    repo: 'priya-k/a11y-checklist',
    author: 'tobiasw',
    title: 'Translate the checklist to German',
    body: 'Happy to do the translation if there is interest.',
    labels: ['question'],
    age: 7 * DAY,
  },
  {
    repo: 'amara-o/runbooks',
    author: 'sven',
    title: 'Runbook: certificate expiry',
    body: 'A checklist for renewing certificates before they expire, including the ones nobody remembers.',
    labels: ['enhancement'],
    age: 6 * DAY,
  },
  {
    repo: 'amara-o/runbooks',
    author: 'mlopez',
    title: 'Disk full runbook misses journald',
    body: '`journalctl --vacuum-size` should be in the list.',
    labels: ['bug'],
    closed: true,
    age: 10 * DAY,
  },
  {
    repo: 'openfoundry/pipeline-kit',
    author: 'jchen',
    title: 'Backfill skips the first partition',
    body: 'Running `backfill --from 2024-01-01` starts at 2024-01-02.',
    labels: ['bug'],
    age: 30 * HOUR,
    comments: [['mlopez', 'Off-by-one in the partition iterator, I think.']],
  },
  {
    repo: 'openfoundry/pipeline-kit',
    author: 'noor',
    title: 'Lineage graph export as SVG',
    body: 'Would be great for docs and reviews.',
    labels: ['enhancement'],
    age: 8 * DAY,
  },
  {
    repo: 'tobiasw/tiny-lisp',
    author: 'jchen',
    title: 'Tail call optimisation',
    body: 'Deep recursion overflows the stack at about 10k frames.',
    labels: ['enhancement'],
    age: 4 * DAY,
  },
];

const ACTIVITY: (Activity & { age: number })[] = [
  { actor: 'mlopez', type: 'commented', repo: 'openfoundry/atlas', number: 21, title: ATLAS_TITLES[20]![0], age: 50 },
  { actor: 'priya-k', type: 'starred', repo: 'kestrel-labs/kestrel', age: 2 * HOUR },
  {
    actor: 'jchen',
    type: 'opened_issue',
    repo: 'openfoundry/pipeline-kit',
    number: 1,
    title: 'Backfill skips the first partition',
    age: 30 * HOUR,
  },
  { actor: 'tobiasw', type: 'created_repo', repo: 'tobiasw/tiny-lisp', age: 3 * DAY },
  { actor: 'sven', type: 'opened_issue', repo: 'jchen/csv-surgeon', number: 1, title: 'Detect UTF-16 files with BOM', age: 20 * HOUR },
  { actor: 'amara-o', type: 'closed_issue', repo: 'amara-o/runbooks', number: 2, title: 'Disk full runbook misses journald', age: 9 * DAY },
  { actor: 'noor', type: 'starred', repo: 'priya-k/a11y-checklist', age: 26 * HOUR },
  { actor: 'jchen', type: 'starred', repo: 'openfoundry/atlas', age: 4 * HOUR },
  { actor: 'noor', type: 'created_repo', repo: 'noor/icon-set', age: 5 * DAY },
  {
    actor: 'priya-k',
    type: 'opened_issue',
    repo: 'kestrel-labs/kestrel',
    number: 1,
    title: 'Type inference breaks for nested route groups',
    age: 2 * DAY,
  },
  { actor: 'amara-o', type: 'starred', repo: 'jchen/csv-surgeon', age: 6 * HOUR },
  { actor: 'tobiasw', type: 'starred', repo: 'sven/pico-weather', age: 7 * DAY },
];

const FOLLOWS: [string, string][] = [
  ['priya-k', 'mlopez'],
  ['jchen', 'mlopez'],
  ['tobiasw', 'mlopez'],
  ['amara-o', 'mlopez'],
  ['mlopez', 'priya-k'],
  ['noor', 'priya-k'],
  ['sven', 'priya-k'],
  ['jchen', 'tobiasw'],
  ['sven', 'tobiasw'],
  ['mlopez', 'jchen'],
  ['amara-o', 'jchen'],
  ['priya-k', 'noor'],
  ['sven', 'amara-o'],
  ['noor', 'sven'],
];

export function forgehubSeed(): SeedDoc[] {
  const out: SeedDoc[] = [];
  const add = <T extends Record<string, unknown>>(kind: string, data: T, ageMinutes: number) => out.push({ kind, data, ageMinutes });

  for (const p of PEOPLE) add('person', p, 400 * DAY);
  for (const r of REPOS) {
    const { age, topics, forks, ...rest } = r;
    add('repo', { ...rest, visibility: 'public', topics: topics ?? [], forks: forks ?? Math.round(r.seedStars / 9) } satisfies Repo, age);
  }

  // openfoundry/atlas: 28 issues, 22 open, numbered oldest first.
  const atlas = repoKey('openfoundry', 'atlas');
  ATLAS_TITLES.forEach(([title, label], i) => {
    const number = i + 1;
    const author = ISSUE_AUTHORS[i % ISSUE_AUTHORS.length]!;
    const age = (ATLAS_TITLES.length - i) * 11 * HOUR + 40;
    const closed = ATLAS_CLOSED.has(number);
    add(
      'issue',
      {
        repo: atlas,
        number,
        title,
        author,
        labels: [label],
        state: closed ? 'closed' : 'open',
        body: `${title}.\n\nSeen on atlas v0.9.${(number % 4) + 1}, Linux amd64, 3-node cluster.`,
        ...(closed ? { closedBy: 'mlopez' } : {}),
      } satisfies Issue,
      age,
    );
    if (number % 3 === 0 || number === 21) {
      add(
        'comment',
        {
          repo: atlas,
          number,
          author: 'mlopez',
          body:
            number === 21
              ? 'A first version of this is on the `watch-resume` branch. Feedback welcome!'
              : 'Thanks for the report. Can you share the logs of all three nodes?',
        } satisfies Comment,
        age - 3 * HOUR,
      );
    }
    if (closed) add('comment', { repo: atlas, number, author: 'mlopez', body: '', event: 'closed' } satisfies Comment, age - 5 * HOUR);
  });

  const counters = new Map<string, number>();
  for (const it of OTHER_ISSUES) {
    const [owner, name] = it.repo.split('/') as [string, string];
    const key = repoKey(owner, name);
    const number = (counters.get(key) ?? 0) + 1;
    counters.set(key, number);
    add(
      'issue',
      {
        repo: key,
        number,
        title: it.title,
        body: it.body,
        author: it.author,
        labels: it.labels,
        state: it.closed ? 'closed' : 'open',
        ...(it.closed ? { closedBy: owner } : {}),
      } satisfies Issue,
      it.age,
    );
    (it.comments ?? []).forEach(([author, body], j) =>
      add('comment', { repo: key, number, author, body } satisfies Comment, it.age - (j + 1) * 90),
    );
    if (it.closed)
      add(
        'comment',
        { repo: key, number, author: owner === 'kestrel-labs' ? 'amara-o' : owner, body: '', event: 'closed' } satisfies Comment,
        it.age - 4 * HOUR,
      );
  }

  for (const a of ACTIVITY) {
    const { age, ...data } = a;
    add('activity', data satisfies Activity, age);
  }
  for (const [follower, target] of FOLLOWS) add('follow', { follower, target } satisfies Follow, 200 * DAY);

  // Every sandbox test user has a profile, two repositories, stars, followers and a few notifications.
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
  return out;
}
