import { Client } from 'pg';
import type { Response } from 'supertest';

import { describeEachStore, PG_URL_ENV, type TestApp } from '../support/app';
import { type Browser, dashboardPeople, refusalCode } from '../support/dashboard-people';

/**
 * An organization always keeps an owner, also when its last two owners act at the same moment (removing each other,
 * or both leaving). On PostgreSQL two conditional DELETEs of different rows do not wait for each other: each counted
 * two owners in its own snapshot, and both passed. Here the requests are made to be in flight together for real: a
 * third session holds the organization's membership rows locked until both requests are seen waiting on that lock
 * in pg_stat_activity, then lets them go at once.
 */

/** A client of this test app's own PostgreSQL database. */
async function pgClient(t: TestApp): Promise<Client> {
  const url = new URL(process.env[PG_URL_ENV]!);
  url.pathname = `/${t.pgDatabase!}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

/** Backends of this database waiting for a lock (other than `except`, the blocker itself). */
async function lockWaiters(watcher: Client, database: string, except: number): Promise<number> {
  const { rows } = await watcher.query<{ n: string }>(
    "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> $2",
    [database, except],
  );
  return Number(rows[0]!.n);
}

/**
 * Runs `requests` while another session holds the organization's membership rows locked, and releases the lock only
 * once `expected` backends wait for it: every request then reaches its check-and-change at the same moment.
 */
async function releasedTogether(t: TestApp, orgId: string, expected: number, requests: () => Promise<Response[]>): Promise<Response[]> {
  const blocker = await pgClient(t);
  const watcher = await pgClient(t);
  try {
    await blocker.query('BEGIN');
    await blocker.query('SELECT user_id FROM org_memberships WHERE organization_id = $1 FOR UPDATE', [orgId]);
    const blockerPid = Number((await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    const inFlight = requests();
    const deadline = Date.now() + 30_000;
    while ((await lockWaiters(watcher, t.pgDatabase!, blockerPid)) < expected) {
      if (Date.now() > deadline) throw new Error(`the ${expected} requests did not all reach the lock within 30 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await blocker.query('COMMIT');
    return await inFlight;
  } finally {
    await blocker.query('ROLLBACK').catch(() => undefined);
    await blocker.end();
    await watcher.end();
  }
}

describeEachStore(
  'the last owner of an organization, with concurrent requests',
  (t: TestApp) => {
    async function twoOwners(name: string) {
      const people = dashboardPeople(t);
      const alice = await people.account();
      const bob = await people.account();
      const { orgId } = await people.createOrg(alice, name);
      await t.services.dashboard.addMember(orgId, bob.email, 'owner');
      return { people, alice, bob, orgId, aliceId: await people.userId(alice.email), bobId: await people.userId(bob.email) };
    }

    const owners = async (orgId: string) =>
      (await t.store.repos.orgMemberships.listForOrganization(orgId)).filter((m) => m.role === 'owner').map((m) => m.userId);

    /** Sends the removals at the same time (on PostgreSQL: released together from a lock, see above). */
    async function together(orgId: string, sends: (() => Promise<Response>)[]): Promise<Response[]> {
      const all = () => Promise.all(sends.map((send) => send()));
      return t.dialect === 'postgres' ? releasedTogether(t, orgId, sends.length, all) : all();
    }

    /**
     * One request passed (removing someone else answers the page, 200; leaving redirects, 303), the other was refused:
     * LAST_OWNER when its actor is still the owner left; when the first removed its actor, NOT_OWNER (or 404 when
     * that happened before its membership check).
     */
    function expectOneRemovedOneRefused(results: Response[], refusal: 'LAST_OWNER' | 'LAST_OWNER_OR_GONE') {
      const passed = results.filter((r) => r.status === 200 || r.status === 303);
      const refused = results.filter((r) => !(r.status === 200 || r.status === 303));
      expect(passed).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const { status, text } = refused[0]!;
      if (refusal === 'LAST_OWNER') {
        expect([status, refusalCode(text)]).toEqual([400, 'LAST_OWNER']);
      } else {
        expect([
          [400, 'LAST_OWNER'],
          [403, 'NOT_OWNER'],
          [404, null],
        ]).toContainEqual([status, refusalCode(text)]);
      }
    }

    it('two owners removing each other at once: one removal passes, the other is refused, one owner is left', async () => {
      const { people, alice, bob, orgId, aliceId, bobId } = await twoOwners('Mutual Co');
      const remove = (by: Browser, userId: string) => () => people.post(by, `/dashboard/orgs/${orgId}/members/${userId}/remove`);
      const results = await together(orgId, [remove(alice, bobId), remove(bob, aliceId)]);
      expectOneRemovedOneRefused(results, 'LAST_OWNER_OR_GONE');
      const left = await owners(orgId);
      expect(left).toHaveLength(1);
      expect([aliceId, bobId]).toContain(left[0]);
    });

    it('the last two owners leaving at once: one leaves, the other stays the owner', async () => {
      const { people, alice, bob, orgId, aliceId, bobId } = await twoOwners('Leaving Co');
      const leave = (by: Browser, userId: string) => () => people.post(by, `/dashboard/orgs/${orgId}/members/${userId}/remove`);
      const results = await together(orgId, [leave(alice, aliceId), leave(bob, bobId)]);
      expectOneRemovedOneRefused(results, 'LAST_OWNER');
      expect(await owners(orgId)).toHaveLength(1);
    });

    it('many organizations, each with its two owners removing each other at once: none is left without an owner', async () => {
      const orgs = await Promise.all([1, 2, 3, 4].map((i) => twoOwners(`Burst ${i} Co`)));
      const results = await Promise.all(
        orgs.flatMap(({ people, alice, bob, orgId, aliceId, bobId }) => [
          people.post(alice, `/dashboard/orgs/${orgId}/members/${bobId}/remove`),
          people.post(bob, `/dashboard/orgs/${orgId}/members/${aliceId}/remove`),
        ]),
      );
      for (let i = 0; i < orgs.length; i++) expectOneRemovedOneRefused(results.slice(2 * i, 2 * i + 2), 'LAST_OWNER_OR_GONE');
      for (const { orgId } of orgs) expect(await owners(orgId)).toHaveLength(1);
    });
  },
  { AGENTLINK_SIGNUP: 'invite' },
);
