import type { SeedDoc } from '../../../sandbox/kit/site';
import { seedDocs } from './seed-common';
import { issueDocs } from './seed-issues';
import { activityDocs, followDocs, peopleDocs } from './seed-people';
import { repoDocs } from './seed-repos';
import { testUserDocs } from './seed-test-users';

/**
 * What a fresh tenant of ForgeHub starts with: people and organizations, ~30 public repositories, issues
 * with discussions (openfoundry/atlas has enough to need "Load more"), stars, follows, activity, and for
 * every sandbox test user a couple of own repositories, stars, followers and notifications. The data is
 * kept per kind (seed-people.ts, seed-repos.ts, seed-issues.ts, seed-test-users.ts); the order here is the seed's.
 */
export function forgehubSeed(): SeedDoc[] {
  const { out, add } = seedDocs();
  peopleDocs(add);
  repoDocs(add);
  issueDocs(add);
  activityDocs(add);
  followDocs(add);
  testUserDocs(add);
  return out;
}
