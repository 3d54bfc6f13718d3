import { HealthScheduler } from '../../server/agent/health';
import {
  firstCheckAt,
  jittered,
  nextCheckAfter,
  OFF_RECHECK_SECONDS,
  RETRY_INCONCLUSIVE_SECONDS,
} from '../../server/domain/check-schedule';
import { ConnectionHealthService, type ProbeVerdict, type SessionProbe } from '../../server/domain/connection-health.service';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { buildServices, type Services } from '../../server/services';
import { type ConnectionRecord, Store } from '../../server/store';
import { loadVault } from '../../server/vault/keyring';
import { createTestApp, type Dialect, postgresSkipped, type TestApp } from '../support/app';

/**
 * The health-check scheduler, without a browser (a probe that records its calls stands in for Chromium):
 *   - the schedule's arithmetic: jitter bounds, a sooner retry after an inconclusive check, none after LOGIN_REQUIRED;
 *   - on SQLite with the embedded queue, and on PostgreSQL with pg-boss: only ACTIVE connections are checked, two
 *     processes sharing one database never check one connection twice (nor at once), a dead process's lease runs
 *     out, checks turned off are not run, and the loop runs and stops.
 */
const HOUR = 3600;

describe('the schedule', () => {
  const now = new Date(Date.UTC(2026, 5, 1));
  const after = (d: Date | null) => (d ? (d.getTime() - now.getTime()) / 1000 : null);

  it('jitters every interval within ±10%, over the whole range', () => {
    expect(after(jittered(now, HOUR, () => 0))).toBe(3240);
    expect(after(jittered(now, HOUR, () => 1))).toBe(3960);
    expect(after(jittered(now, HOUR, () => 0.5))).toBe(HOUR);
    // A broken random source cannot push it out of bounds.
    expect(after(jittered(now, HOUR, () => 7))).toBe(3960);
    expect(after(jittered(now, HOUR, () => -3))).toBe(3240);
    const draws = Array.from({ length: 2000 }, () => after(jittered(now, HOUR))!);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(HOUR * 0.9);
    expect(Math.max(...draws)).toBeLessThanOrEqual(HOUR * 1.1);
    // Spread, not a constant: the connections of a burst do not stay in step.
    expect(new Set(draws).size).toBeGreaterThan(1000);
  });

  it('after each outcome: the interval; sooner after an inconclusive check; none after LOGIN_REQUIRED; a day when off', () => {
    const mid = () => 0.5;
    expect(after(nextCheckAfter(now, 'SIGNED_IN', 4 * HOUR, mid))).toBe(4 * HOUR);
    expect(after(nextCheckAfter(now, 'RENEWED', 4 * HOUR, mid))).toBe(4 * HOUR);
    expect(after(nextCheckAfter(now, 'SESSION_UNREADABLE', 4 * HOUR, mid))).toBe(4 * HOUR);
    expect(after(nextCheckAfter(now, 'TIMED_OUT', 4 * HOUR, mid))).toBe(RETRY_INCONCLUSIVE_SECONDS);
    expect(after(nextCheckAfter(now, 'UNREACHABLE', 4 * HOUR, mid))).toBe(RETRY_INCONCLUSIVE_SECONDS);
    expect(after(nextCheckAfter(now, 'UNREACHABLE', 300, mid))).toBe(300);
    expect(nextCheckAfter(now, 'LOGIN_REQUIRED', 4 * HOUR, mid)).toBeNull();
    expect(after(nextCheckAfter(now, 'SIGNED_IN', 0, mid))).toBe(OFF_RECHECK_SECONDS);
    expect(after(firstCheckAt(now, 4 * HOUR, () => 0))).toBe(12_960);
    expect(after(firstCheckAt(now, 0))).toBe(OFF_RECHECK_SECONDS);
  });
});

/** A probe that takes a moment and records, per connection, each call and the most checks it ever saw at once. */
class CountingProbe implements SessionProbe {
  readonly calls = new Map<string, string[]>();
  private running = new Map<string, number>();
  overlapped = 0;
  constructor(
    private readonly name: string,
    private readonly shared: { inFlight: Map<string, number> },
  ) {}
  async check(input: { connection: ConnectionRecord }): Promise<ProbeVerdict> {
    const id = input.connection.id;
    this.calls.set(id, [...(this.calls.get(id) ?? []), this.name]);
    const inFlight = (this.shared.inFlight.get(id) ?? 0) + 1;
    this.shared.inFlight.set(id, inFlight);
    if (inFlight > 1) this.overlapped += 1;
    this.running.set(id, (this.running.get(id) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
    this.shared.inFlight.set(id, this.shared.inFlight.get(id)! - 1);
    return { kind: 'signed_in', session: { cookies: [], origins: [] } };
  }
}

/** One "process": its own services on the shared database, a counting probe, and a scheduler. */
function processOn(services: Services, t: TestApp, name: string, shared: { inFlight: Map<string, number> }) {
  const probe = new CountingProbe(name, shared);
  const health = new ConnectionHealthService(
    {
      store: services.store,
      clock: t.clock,
      connections: services.connections,
      catalogue: services.catalogue,
      settings: services.connectionSettings,
      probe,
      ownerId: `test:${name}`,
    },
    { budgetMs: 5000, concurrency: 2 },
  );
  const scheduler = new HealthScheduler(
    { store: services.store, clock: t.clock, health },
    { concurrency: 2, pollMs: 20, workerId: `test:${name}` },
  );
  return { probe, scheduler };
}

const ENGINES: { dialect: Dialect; queue: 'embedded' | 'pg-boss' }[] = [
  { dialect: 'sqlite', queue: 'embedded' },
  { dialect: 'postgres', queue: 'pg-boss' },
];

for (const { dialect, queue } of ENGINES) {
  const maybe = dialect === 'postgres' && postgresSkipped() ? describe.skip : describe;
  maybe(`the scheduler [${dialect}, ${queue} queue]`, () => {
    let t: TestApp;
    let second: { store: Store; services: Services };
    const shared = { inFlight: new Map<string, number>() };
    const caller = { organizationId: 'org_scheduler', environment: 'sandbox' as const };

    beforeAll(async () => {
      t = await createTestApp(dialect, { AGENTLINK_QUEUE: queue, AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS: String(HOUR) });
      expect(t.services.queue.engine).toBe(queue);
      // A second process: its own store (connection pool) and services on the same database.
      const store = await Store.open(t.config.database);
      second = { store, services: buildServices({ config: t.config, store, clock: t.clock, vault: loadVault(t.config).vault }) };
    }, 60_000);

    afterAll(async () => {
      await second?.services.queue.stop();
      await second?.store.close();
      await t?.close();
    }, 60_000);

    const connect = async (clientUserId: string) =>
      (await t.services.connections.create(caller, { providerId: ORBIT_PROVIDER_ID, clientUserId, session: { cookies: [], origins: [] } }))
        .connection.id;
    /** Makes connections due now: planned an hour ago. */
    const makeDue = async (ids: string[]) => {
      const repo = t.store.dataSource.getRepository<ConnectionRecord>('Connection');
      for (const id of ids) await repo.update({ id }, { nextCheckAt: new Date(t.clock.now().getTime() - 1000) });
    };
    const drain = async (...schedulers: HealthScheduler[]) => {
      for (;;) {
        const started = await Promise.all(schedulers.map((s) => s.pass()));
        await Promise.all(schedulers.map((s) => s.idle()));
        if (started.every((n) => n === 0)) return;
      }
    };

    it('plans new connections one jittered interval ahead, and checks only ACTIVE ones when due', async () => {
      const { probe, scheduler } = processOn(t.services, t, 'solo', shared);
      const [active, loginRequired, revoked] = [await connect('a'), await connect('b'), await connect('c')];
      await t.services.connections.markLoginRequired(loginRequired);
      await t.services.connections.revoke(caller, revoked);
      await scheduler.pass();
      const planned = (await t.store.repos.connections.findById(active))!.nextCheckAt!;
      const ahead = (planned.getTime() - t.clock.now().getTime()) / 1000;
      expect(ahead).toBeGreaterThanOrEqual(HOUR * 0.9);
      expect(ahead).toBeLessThanOrEqual(HOUR * 1.1);
      expect((await t.store.repos.connections.findById(loginRequired))!.nextCheckAt).toBeNull();

      await makeDue([active, loginRequired, revoked]);
      await drain(scheduler);
      expect([...probe.calls.keys()]).toEqual([active]);
      expect((await t.store.repos.connections.findById(loginRequired))!.lastCheckedAt).toBeNull();
      expect((await t.store.repos.connections.findById(revoked))!.lastCheckedAt).toBeNull();
    });

    it('two processes on one database: every due connection checked once, never two at once, at most 2 per process', async () => {
      const a = processOn(t.services, t, 'a', shared);
      const b = processOn(second.services, t, 'b', shared);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(await connect(`shared-${i}`));
      await makeDue(ids);
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, a.scheduler.activeCount, b.scheduler.activeCount)), 2);
      try {
        await drain(a.scheduler, b.scheduler);
      } finally {
        clearInterval(sampler);
      }
      const checkedBy = ids.map((id) => [...(a.probe.calls.get(id) ?? []), ...(b.probe.calls.get(id) ?? [])]);
      expect(checkedBy.map((by) => by.length)).toEqual(ids.map(() => 1));
      expect(a.probe.overlapped + b.probe.overlapped).toBe(0);
      expect(peak).toBeLessThanOrEqual(2);
      // Both took part, and each connection carries its check and its next one.
      expect(a.probe.calls.size).toBeGreaterThan(0);
      expect(b.probe.calls.size).toBeGreaterThan(0);
      for (const id of ids) {
        expect(await t.store.repos.connections.findById(id)).toMatchObject({ lastCheckOutcome: 'SIGNED_IN', checkOwner: null });
      }
    });

    it('a connection another process holds is left alone until its lease runs out', async () => {
      const { probe, scheduler } = processOn(t.services, t, 'heir', shared);
      const id = await connect('held');
      await makeDue([id]);
      const now = t.clock.now();
      expect(
        await t.store.repos.connections.claimCheck(id, 'dead:1', now, new Date(now.getTime() + 5000), { statuses: ['ACTIVE'], due: true }),
      ).toBe(true);
      // Claimed: not claimable again, by anyone, while the lease holds.
      expect(await t.store.repos.connections.claimCheck(id, 'other', now, new Date(now.getTime() + 5000), { statuses: ['ACTIVE'] })).toBe(
        false,
      );
      await drain(scheduler);
      expect(probe.calls.has(id)).toBe(false);
      t.clock.advance(6000);
      await drain(scheduler);
      expect(probe.calls.get(id)).toEqual(['heir']);
      // The dead process's late write cannot land: the lease is no longer its own.
      expect(
        await t.store.repos.connections.finishCheck(id, 'dead:1', { checkedAt: now, outcome: 'LOGIN_REQUIRED', nextCheckAt: null }),
      ).toBe(false);
      expect((await t.store.repos.connections.findById(id))!.lastCheckOutcome).toBe('SIGNED_IN');
    });

    it('checks turned off for the organization: a due connection is put back a day later, unchecked', async () => {
      const { probe, scheduler } = processOn(t.services, t, 'off', shared);
      const offCaller = { organizationId: 'org_checks_off', environment: 'sandbox' as const };
      const id = (
        await t.services.connections.create(offCaller, {
          providerId: ORBIT_PROVIDER_ID,
          clientUserId: 'off',
          session: { cookies: [], origins: [] },
        })
      ).connection.id;
      await t.services.connectionSettings.update(offCaller, { healthCheck: { intervalSeconds: 0 } });
      await makeDue([id]);
      await drain(scheduler);
      expect(probe.calls.has(id)).toBe(false);
      const row = (await t.store.repos.connections.findById(id))!;
      expect(row).toMatchObject({ lastCheckedAt: null, checkOwner: null });
      expect(row.nextCheckAt!.getTime() - t.clock.now().getTime()).toBe(OFF_RECHECK_SECONDS * 1000);
    });

    it('a connection a run used since its last check needs no browser: its check moves to one interval after the run', async () => {
      const { probe, scheduler } = processOn(t.services, t, 'used', shared);
      const id = await connect('busy');
      await makeDue([id]);
      t.clock.advance(-10 * 60_000);
      expect(await t.services.connections.saveSession(id, { cookies: [], origins: [] }, { used: true })).toBe(true);
      const usedAt = t.clock.now();
      t.clock.advance(10 * 60_000);
      await drain(scheduler);
      expect(probe.calls.has(id)).toBe(false);
      const row = (await t.store.repos.connections.findById(id))!;
      expect(row).toMatchObject({ lastCheckedAt: null, checkOwner: null });
      const after = (row.nextCheckAt!.getTime() - usedAt.getTime()) / 1000;
      expect(after).toBeGreaterThanOrEqual(HOUR * 0.9);
      expect(after).toBeLessThanOrEqual(HOUR * 1.1);
    });

    it('started, it checks what comes due by itself; stopped, it waits for its checks and claims no more', async () => {
      const { probe, scheduler } = processOn(t.services, t, 'loop', shared);
      const id = await connect('looped');
      await makeDue([id]);
      scheduler.start();
      try {
        for (const until = Date.now() + 15_000; !probe.calls.has(id) && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
        expect(probe.calls.get(id)).toEqual(['loop']);
      } finally {
        await scheduler.stop();
      }
      expect(scheduler.activeCount).toBe(0);
      const later = await connect('after-stop');
      await makeDue([later]);
      expect(await scheduler.pass()).toBe(0);
    });
  });
}
