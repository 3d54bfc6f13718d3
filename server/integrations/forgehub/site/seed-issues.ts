import { type Comment, type Issue, repoKey } from './model';
import { type AddDoc, DAY, HOUR } from './seed-common';

/** Issues with their discussions: openfoundry/atlas has enough of them to need "Load more"; a few in other repositories. */
export const ATLAS_TITLES: [string, string][] = [
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

export function issueDocs(add: AddDoc): void {
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
}
