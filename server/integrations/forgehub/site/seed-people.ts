import type { Activity, Follow, Person } from './model';
import { type AddDoc, DAY, HOUR } from './seed-common';
import { ATLAS_TITLES } from './seed-issues';

/** ForgeHub's people and organizations, who follows whom, and what they did lately (the activity feed). */
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

export function peopleDocs(add: AddDoc): void {
  for (const p of PEOPLE) add('person', p, 400 * DAY);
}

export function activityDocs(add: AddDoc): void {
  for (const a of ACTIVITY) {
    const { age, ...data } = a;
    add('activity', data satisfies Activity, age);
  }
}

export function followDocs(add: AddDoc): void {
  for (const [follower, target] of FOLLOWS) add('follow', { follower, target } satisfies Follow, 200 * DAY);
}
