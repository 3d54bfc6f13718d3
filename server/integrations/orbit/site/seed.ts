import type { SeedDoc } from '../../../sandbox/kit/site';
import { SEED_PEOPLE } from './seed-people';
import { postDocs } from './seed-posts';
import { testUserDocs } from './seed-test-users';

export { SEED_PEOPLE } from './seed-people';
export { userSeedKey } from './seed-posts';

/** Everything a fresh tenant starts with (the data per kind: seed-people.ts, seed-posts.ts, seed-test-users.ts). */
export function orbitSeed(): SeedDoc[] {
  const docs: SeedDoc[] = [];
  for (const p of SEED_PEOPLE) docs.push({ kind: 'person', data: { ...p }, ageMinutes: 60 * 24 * 400 });
  postDocs(docs);
  testUserDocs(docs);
  return docs;
}
